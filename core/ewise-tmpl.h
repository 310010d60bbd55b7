/* The elementwise kernels of one dtype: included by ewise-tmpl.c once per
 * dtype, with T, U, NAME, DT, KIND and, for the dtypes with fused runs, R
 * defined (see there); defines fill_NAME, which puts them in a table. */

#define FN(x) EW_CAT (x, NAME)

/* One function per op: x is the item, c the operand. */
#if KIND == EW_FLOAT
EW_INLINE T
FN (add) (T x, T c)
{
  return x + c;
}

EW_INLINE T
FN (sub) (T x, T c)
{
  return x - c;
}

EW_INLINE T
FN (mul) (T x, T c)
{
  return x * c;
}

EW_INLINE T
FN (div) (T x, T c)
{
  return x / c;
}

EW_INLINE T
FN (pow) (T x, T c)
{
  return pow (x, c);
}

/* NaN if either is NaN (NumPy's minimum and maximum). */
EW_INLINE T
FN (min) (T x, T c)
{
  return c < x || c != c ? c : x;
}

EW_INLINE T
FN (max) (T x, T c)
{
  return c > x || c != c ? c : x;
}

/* fmod moved into the divisor's sign: exact, like NumPy's remainder. */
EW_INLINE T
FN (mod) (T a, T b)
{
  T m = fmod (a, b);

  if (b == 0)
    return m;
  if (m != 0) {
    if ((b < 0) != (m < 0))
      m += b;
  } else {
    m = copysign ((T) 0, b);
  }
  return m;
}

EW_INLINE T
FN (neg) (T x)
{
  return -x;
}

EW_INLINE T
FN (abs) (T x)
{
  return fabs (x);
}

EW_INLINE T
FN (sqrt) (T x)
{
  return sqrt (x);
}

EW_INLINE T
FN (exp) (T x)
{
  return exp (x);
}

EW_INLINE T
FN (log) (T x)
{
  return log (x);
}

/* exp of a non-positive number cannot overflow. */
EW_INLINE T
FN (sigmoid) (T x)
{
  T t = exp (-fabs (x));

  return (x >= 0 ? (T) 1 : t) / ((T) 1 + t);
}

EW_INLINE T
FN (tanh) (T x)
{
  return tanh (x);
}

/* floor and ceil through rint, which vectorises where they do not
 * (without -fno-trapping-math).  rint is exact; x - r is then exact too,
 * and never -0, so its sign bit alone says whether r rounded up.  Bit
 * operations instead of a comparison let GCC vectorise under
 * -ftrapping-math, and r - 0 keeps -0.  ceil(x) = -floor(-x) holds for
 * every x, signed zeros included. */
EW_INLINE T
FN (floor) (T x)
{
  T r = rint (x), d = x - r, one = 1, adj;
  U b, o;

  memcpy (&b, &d, sizeof b);
  memcpy (&o, &one, sizeof o);
  o &= (U) 0 - (b >> (8 * sizeof (U) - 1));
  memcpy (&adj, &o, sizeof adj);
  return r - adj;
}

EW_INLINE T
FN (ceil) (T x)
{
  return -FN (floor) (-x);
}

EW_INLINE T
FN (round) (T x)
{
  return rint (x);
}

#else /* integers wrap: the arithmetic is done in U, where C defines it */

EW_INLINE T
FN (add) (T x, T c)
{
  return (T) ((U) x + (U) c);
}

EW_INLINE T
FN (sub) (T x, T c)
{
  return (T) ((U) x - (U) c);
}

/* "* 1u" keeps types narrower than int from promoting to signed int. */
EW_INLINE T
FN (mul) (T x, T c)
{
  return (T) ((U) x * 1u * (U) c);
}

/* A negative exponent reaches here only from a tensor operand (a step
 * refuses one): 1 / x^-c truncated toward 0, so 0 but for x = 1 and -1,
 * and 0 for x = 0 as a division by zero gives. */
EW_INLINE T
FN (pow) (T x, T c)
{
#if KIND == EW_INT
  if (c < 0)
    return (T) (x == 1 ? 1 : x == -1 ? ((c & 1) ? -1 : 1) : 0);
#endif
  return (T) ew_ipow ((uint64_t) x, (uint64_t) c);
}

EW_INLINE T
FN (min) (T x, T c)
{
  return c < x ? c : x;
}

EW_INLINE T
FN (max) (T x, T c)
{
  return c > x ? c : x;
}

EW_INLINE T
FN (neg) (T x)
{
  return (T) (0u - (U) x);
}

#if KIND == EW_INT
EW_INLINE T
FN (div) (T x, T c)
{
  return (T) ew_floordiv ((int64_t) x, (int64_t) c);
}

EW_INLINE T
FN (mod) (T x, T c)
{
  return (T) ew_floormod ((int64_t) x, (int64_t) c);
}

EW_INLINE T
FN (abs) (T x)
{
  return (T) (x < 0 ? 0u - (U) x : (U) x);
}
#else
EW_INLINE T
FN (div) (T x, T c)
{
  return (T) (c ? x / c : 0);
}

EW_INLINE T
FN (mod) (T x, T c)
{
  return (T) (c ? x % c : 0);
}
#endif
#endif

#if KIND != EW_UINT
/* x < 0 ? 0 : x, so NaN stays NaN and -0 stays -0. */
EW_INLINE T
FN (relu) (T x)
{
  return x < 0 ? (T) 0 : x;
}
#endif

/* Every op: x is the item, a the operand (clamp: LO), b clamp's HI. */
EW_INLINE T
FN (apply) (int op, T x, T a, T b)
{
  switch (op) {
  case TN_EW_ADD:
    return FN (add) (x, a);
  case TN_EW_SUB:
    return FN (sub) (x, a);
  case TN_EW_MUL:
    return FN (mul) (x, a);
  case TN_EW_DIV:
    return FN (div) (x, a);
  case TN_EW_POW:
    return FN (pow) (x, a);
  case TN_EW_MIN:
    return FN (min) (x, a);
  case TN_EW_MAX:
    return FN (max) (x, a);
  case TN_EW_MOD:
    return FN (mod) (x, a);
  case TN_EW_NEG:
    return FN (neg) (x);
#if KIND != EW_UINT
  case TN_EW_ABS:
    return FN (abs) (x);
  case TN_EW_RELU:
    return FN (relu) (x);
#endif
#if KIND == EW_FLOAT
  case TN_EW_SQRT:
    return FN (sqrt) (x);
  case TN_EW_EXP:
    return FN (exp) (x);
  case TN_EW_LOG:
    return FN (log) (x);
  case TN_EW_SIGMOID:
    return FN (sigmoid) (x);
  case TN_EW_TANH:
    return FN (tanh) (x);
  case TN_EW_FLOOR:
    return FN (floor) (x);
  case TN_EW_CEIL:
    return FN (ceil) (x);
  case TN_EW_ROUND:
    return FN (round) (x);
#endif
  case TN_EW_CLAMP:
    return x < a ? a : x > b ? b : x;
#if KIND != EW_FLOAT
  case EW_AND:
    return x & a;
  case EW_OR:
    return x | a;
  case EW_XOR:
    return x ^ a;
#endif
  default: /* no kernel has another op */
    return x;
  }
}

/* Variant 0, out of place and in place, and variant 1 likewise. */
EW_INLINE void
FN (map_s) (T *restrict d, const T *restrict s, size_t n, int op, T a, T b)
{
  EW_LOOP (FN (apply) (op, s[j], a, b));
}

EW_INLINE void
FN (map_s_in) (T *restrict d, size_t n, int op, T a, T b)
{
  EW_LOOP (FN (apply) (op, d[j], a, b));
}

EW_INLINE void
FN (map_v) (
    T *restrict d, const T *restrict s, const T *restrict o, size_t n, int op)
{
  EW_LOOP (FN (apply) (op, s[j], o[j], 0));
}

EW_INLINE void
FN (map_v_in) (T *restrict d, const T *restrict o, size_t n, int op)
{
  EW_LOOP (FN (apply) (op, d[j], o[j], 0));
}

/* The operand first: x op s[j] (rev). */
EW_INLINE void
FN (map_r) (T *restrict d, const T *restrict s, size_t n, int op, T a)
{
  EW_LOOP (FN (apply) (op, a, s[j], 0));
}

EW_INLINE void
FN (map_r_in) (T *restrict d, size_t n, int op, T a)
{
  EW_LOOP (FN (apply) (op, a, d[j], 0));
}

EW_INLINE void
FN (kern_r) (void *dv, const void *sv, const void *ov, size_t n, int op)
{
  const T a = ((const T *) ov)[0];

  if (dv == sv)
    FN (map_r_in) (dv, n, op, a);
  else
    FN (map_r) (dv, sv, n, op, a);
}

#if KIND == EW_FLOAT
/* rep (ewise-kern.h): o's EW_REP_L items applied to each whole pattern's
 * worth of s, then to the rest; rev puts o first. */
EW_INLINE T
FN (rep_item) (int op, T x, T p, bool rev)
{
  return rev ? FN (apply) (op, p, x, 0) : FN (apply) (op, x, p, 0);
}

/* d[i + k] = X op o[k] (or o[k] op X) with X the item i + k of the
 * source: s out of place, d in place. */
#define EW_REP_LOOP(X)                                                         \
  do {                                                                         \
    size_t i = 0, k;                                                           \
                                                                               \
    for (; i + EW_REP_L <= n; i += EW_REP_L)                                   \
      for (k = 0; k < EW_REP_L; k++)                                           \
        d[i + k] = FN (rep_item) (op, X[i + k], o[k], rev);                    \
    for (k = 0; i + k < n; k++)                                                \
      d[i + k] = FN (rep_item) (op, X[i + k], o[k], rev);                      \
  } while (0)

EW_INLINE void
FN (map_p) (T *restrict d, const T *restrict s, const T *restrict o, size_t n,
    int op, bool rev)
{
  EW_REP_LOOP (s);
}

EW_INLINE void
FN (map_p_in) (T *restrict d, const T *restrict o, size_t n, int op, bool rev)
{
  EW_REP_LOOP (d);
}
#undef EW_REP_LOOP

EW_INLINE void
FN (kern_p) (
    void *dv, const void *sv, const void *ov, size_t n, int op, bool rev)
{
  if (dv == sv)
    FN (map_p_in) (dv, ov, n, op, rev);
  else
    FN (map_p) (dv, sv, ov, n, op, rev);
}
#endif

/* Comparisons into bool bytes (NaN compares false but for ne, as C's and
 * NumPy's operators do). */
EW_INLINE uint8_t
FN (rel) (int r, T x, T c)
{
  switch (r) {
  case TN_EW_EQ:
    return x == c;
  case TN_EW_NE:
    return x != c;
  case TN_EW_LT:
    return x < c;
  case TN_EW_LE:
    return x <= c;
  case TN_EW_GT:
    return x > c;
  default:
    return x >= c;
  }
}

EW_INLINE void
FN (rel_s) (uint8_t *restrict d, const T *restrict s, size_t n, int r, T a)
{
  EW_LOOP (FN (rel) (r, s[j], a));
}

EW_INLINE void
FN (rel_v) (uint8_t *restrict d, const T *restrict s, const T *restrict o,
    size_t n, int r)
{
  EW_LOOP (FN (rel) (r, s[j], o[j]));
}

/* In place for one-byte items only: T and bool share the bytes. */
EW_INLINE void
FN (rel_s_in) (T *restrict d, size_t n, int r, T a)
{
  EW_LOOP ((T) FN (rel) (r, d[j], a));
}

EW_INLINE void
FN (rel_v_in) (T *restrict d, const T *restrict o, size_t n, int r)
{
  EW_LOOP ((T) FN (rel) (r, d[j], o[j]));
}

EW_INLINE void
FN (kern_rel) (
    void *dv, const void *sv, const void *ov, size_t n, int r, bool vec)
{
  if (sizeof (T) == 1 && dv == sv) {
    if (vec)
      FN (rel_v_in) (dv, ov, n, r);
    else
      FN (rel_s_in) (dv, n, r, ((const T *) ov)[0]);
  } else if (vec) {
    FN (rel_v) (dv, sv, ov, n, r);
  } else {
    FN (rel_s) (dv, sv, n, r, ((const T *) ov)[0]);
  }
}

EW_INLINE void
FN (kern_s) (void *dv, const void *sv, const void *ov, size_t n, int op)
{
  T a = 0, b = 0;

  if (op <= TN_EW_MOD || op == TN_EW_CLAMP || op >= EW_AND)
    a = ((const T *) ov)[0];
  if (op == TN_EW_CLAMP)
    b = ((const T *) ov)[1];
  if (dv == sv)
    FN (map_s_in) (dv, n, op, a, b);
  else
    FN (map_s) (dv, sv, n, op, a, b);
}

EW_INLINE void
FN (kern_v) (void *dv, const void *sv, const void *ov, size_t n, int op)
{
  if (dv == sv)
    FN (map_v_in) (dv, ov, n, op);
  else
    FN (map_v) (dv, sv, ov, n, op);
}

EW_BINARY (TN_EW_ADD, add)
EW_BINARY (TN_EW_SUB, sub)
EW_BINARY (TN_EW_MUL, mul)
EW_BINARY (TN_EW_DIV, div)
EW_BINARY (TN_EW_POW, pow)
EW_BINARY (TN_EW_MIN, min)
EW_BINARY (TN_EW_MAX, max)
EW_BINARY (TN_EW_MOD, mod)
EW_REV (TN_EW_ADD, add)
EW_REV (TN_EW_SUB, sub)
EW_REV (TN_EW_MUL, mul)
EW_REV (TN_EW_DIV, div)
EW_REV (TN_EW_POW, pow)
EW_REV (TN_EW_MIN, min)
EW_REV (TN_EW_MAX, max)
EW_REV (TN_EW_MOD, mod)
#if KIND == EW_FLOAT
EW_REP (TN_EW_ADD, add)
EW_REP (TN_EW_SUB, sub)
EW_REP (TN_EW_MUL, mul)
EW_REP (TN_EW_DIV, div)
#endif
EW_UNARY (TN_EW_NEG, neg)
#if KIND != EW_UINT
EW_UNARY (TN_EW_ABS, abs)
EW_UNARY (TN_EW_RELU, relu)
#endif
#if KIND == EW_FLOAT
EW_UNARY (TN_EW_SQRT, sqrt)
EW_UNARY (TN_EW_EXP, exp)
EW_UNARY (TN_EW_LOG, log)
EW_UNARY (TN_EW_SIGMOID, sigmoid)
EW_UNARY (TN_EW_TANH, tanh)
EW_UNARY (TN_EW_FLOOR, floor)
EW_UNARY (TN_EW_CEIL, ceil)
EW_UNARY (TN_EW_ROUND, round)
#endif
EW_UNARY (TN_EW_CLAMP, clamp)
#if KIND != EW_FLOAT
EW_BINARY (EW_AND, and)
EW_BINARY (EW_OR, or)
EW_BINARY (EW_XOR, xor)
#endif
EW_REL (TN_EW_EQ, eq)
EW_REL (TN_EW_NE, ne)
EW_REL (TN_EW_LT, lt)
EW_REL (TN_EW_LE, le)
EW_REL (TN_EW_GT, gt)
EW_REL (TN_EW_GE, ge)

#if EW_PORTABLE && defined(R)
/* The fused runs (ewise-kern.h): op is 0..3 for add..div, TN_EW_NOP for
 * nothing; constants in each kernel of FN (runs), which inline this. */
EW_INLINE R
FN (arith) (int op, R x, R c)
{
  switch (op) {
  case TN_EW_ADD:
    return x + c;
  case TN_EW_SUB:
    return x - c;
  case TN_EW_MUL:
    return x * c;
  case TN_EW_DIV:
    return x / c;
  default:
    return x;
  }
}

EW_INLINE R
FN (run_item) (R x, int op1, int op2, bool relu, R c1, R c2)
{
  R y = FN (arith) (op2, FN (arith) (op1, x, c1), c2);

  return relu && y < 0 ? (R) 0 : y;
}

EW_INLINE void
FN (run_map) (R *restrict d, const T *restrict s, size_t n, int op1, int op2,
    bool relu, R c1, R c2)
{
  EW_LOOP (FN (run_item) ((R) s[j], op1, op2, relu, c1, c2));
}

#if KIND == EW_FLOAT
EW_INLINE void
FN (run_map_in) (
    T *restrict d, size_t n, int op1, int op2, bool relu, R c1, R c2)
{
  EW_LOOP (FN (run_item) (d[j], op1, op2, relu, c1, c2));
}
#endif

EW_INLINE void
FN (run) (void *dv, const void *sv, const void *ov, size_t n, int op1, int op2,
    bool relu)
{
  const R c1 = ((const R *) ov)[0], c2 = ((const R *) ov)[1];

#if KIND == EW_FLOAT
  if (dv == sv) {
    FN (run_map_in) (dv, n, op1, op2, relu, c1, c2);
    return;
  }
#endif
  FN (run_map) (dv, sv, n, op1, op2, relu, c1, c2);
}

TN_EW_REP50 (EW_RUN_K)
static const tn_ew_kern FN (runs)[50] = { TN_EW_REP50 (EW_RUN_ENTRY) };
#endif

static const tn_ew_kern FN (revs)[TN_EW_MOD + 1] = { FN (add_r), FN (sub_r),
  FN (mul_r), FN (div_r), FN (pow_r), FN (min_r), FN (max_r), FN (mod_r) };

static void
FN (fill) (tn_ewise_dsp *d)
{
  EW_SET2 (TN_EW_ADD, add);
  EW_SET2 (TN_EW_SUB, sub);
  EW_SET2 (TN_EW_MUL, mul);
  EW_SET2 (TN_EW_DIV, div);
  EW_SET2 (TN_EW_POW, pow);
  EW_SET2 (TN_EW_MIN, min);
  EW_SET2 (TN_EW_MAX, max);
  EW_SET2 (TN_EW_MOD, mod);
  d->step[TN_EW_NEG][DT][0] = FN (neg_s);
#if KIND != EW_UINT
  d->step[TN_EW_ABS][DT][0] = FN (abs_s);
  d->step[TN_EW_RELU][DT][0] = FN (relu_s);
#endif
#if KIND == EW_FLOAT
  d->step[TN_EW_SQRT][DT][0] = FN (sqrt_s);
  d->step[TN_EW_EXP][DT][0] = FN (exp_s);
  d->step[TN_EW_LOG][DT][0] = FN (log_s);
  d->step[TN_EW_SIGMOID][DT][0] = FN (sigmoid_s);
  d->step[TN_EW_TANH][DT][0] = FN (tanh_s);
  d->step[TN_EW_FLOOR][DT][0] = FN (floor_s);
  d->step[TN_EW_CEIL][DT][0] = FN (ceil_s);
  d->step[TN_EW_ROUND][DT][0] = FN (round_s);
#endif
  d->step[TN_EW_CLAMP][DT][0] = FN (clamp_s);
  for (int op = 0; op <= TN_EW_MOD; op++)
    d->rev[op][DT] = FN (revs)[op];
#if KIND != EW_FLOAT
  EW_SETBIT (TN_EW_AND, and);
  EW_SETBIT (TN_EW_OR, or);
  EW_SETBIT (TN_EW_XOR, xor);
#endif
#if KIND == EW_FLOAT
  d->stream[TN_EW_ADD][DT] = FN (add_v);
  d->stream[TN_EW_SUB][DT] = FN (sub_v);
  d->stream[TN_EW_MUL][DT] = FN (mul_v);
  d->stream[TN_EW_DIV][DT] = FN (div_v);
  EW_SETREP (TN_EW_ADD, add);
  EW_SETREP (TN_EW_SUB, sub);
  EW_SETREP (TN_EW_MUL, mul);
  EW_SETREP (TN_EW_DIV, div);
#endif
  EW_SETREL (TN_EW_EQ, eq);
  EW_SETREL (TN_EW_NE, ne);
  EW_SETREL (TN_EW_LT, lt);
  EW_SETREL (TN_EW_LE, le);
  EW_SETREL (TN_EW_GT, gt);
  EW_SETREL (TN_EW_GE, ge);
#if EW_PORTABLE && defined(R)
  for (int k = 0; k < 50; k++)
    if (KIND != EW_FLOAT || k / 10 != TN_EW_NOP)
      d->run[DT][k / 10][k / 2 % 5][k % 2] = FN (runs)[k];
#endif
}

#undef FN
#undef T
#undef U
#undef NAME
#undef DT
#undef KIND
#undef R
