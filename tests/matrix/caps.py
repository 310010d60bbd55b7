# Caps matrix (issue 11, point 3 and "A caps matrix test").
#
# Every element that takes tensor/x-raw, fed from an appsrc (gstpy.py) whose
# caps are hand-written: with type and dims only, and with each optional
# field (dims-order, framerate), it works and gives NumPy's answer; with a
# wrong field it fails with a message from the element that refuses, naming
# what it refused (never a bare not-negotiated).  tensorsrc, a source, is
# given the same caps by a capsfilter.
#
# x.raw holds one float32 <3, 4> tensor (arange); gstpy.py pushes it twice.
{
'files': {
    'x.raw': "raw(np.arange(12, dtype=np.float32))",
    'x1.raw': "raw(np.arange(1, dtype=np.float32))",
    'w42.npy': "np.arange(8, dtype=np.float32).reshape(4, 2)",
},
'product': [
  {
    # NNStreamer's caps into tensorconvert (docs/caps.md, "NNStreamer
    # caps"): minimal, and as NNStreamer 2.7.0 writes them; x, <3, 4>, is
    # 4:3 there.  Lists of several tensors are separated by '.', which
    # NNStreamer reads as it reads ',' and needs no quoting here.
    'axes': [
      [{'id': 'tensorconvert'}],
      [
        {'id': 'nns-tensors-minimal', 'caps': 'other/tensors,format=static,num_tensors=1,types=float32,dimensions=(string)4:3'},
        {'id': 'nns-tensor-minimal', 'caps': 'other/tensor,type=float32,dimension=(string)4:3'},
        {'id': 'nns-tensors-full', 'caps': 'other/tensors,format=(string)static,num_tensors=(int)1,framerate=(fraction)30/1,dimensions=(string)4:3:1:1,types=(string)float32'},
      ],
    ],
    'case': {'name': 'tensorconvert.{id1}',
             'py': 'appsrc caps={caps} format=time ! tensorconvert ! tensor/x-raw,dims=<3,4> ! appsink name=@SINK@',
             'pyargs': ['--feed', '@DIR@/x.raw', '--repeat', '2'],
             'expect': 'ok',
             'array': 'np.stack([np.arange(12, dtype=np.float32).reshape(3, 4)] * 2)',
             'issue': 'issue 17: NNStreamer caps, minimal or full, map to tensor/x-raw'},
  },
  {
    'axes': [
      [{'id': 'tensorconvert'}],
      [
        {'id': 'nns-flexible', 'caps': 'other/tensors,format=flexible,framerate=0/1', 'w': 'format=flexible'},
        {'id': 'nns-sparse', 'caps': 'other/tensors,format=sparse,framerate=0/1', 'w': 'format=sparse'},
        {'id': 'nns-two-tensors', 'caps': 'other/tensors,format=static,num_tensors=2,types=float32.float32,dimensions=(string)4:3.4:3', 'w': 'tensor-index'},
        {'id': 'nns-bad-type', 'caps': 'other/tensor,type=float33,dimension=(string)4:3', 'w': 'float33'},
        {'id': 'nns-zero-extent', 'caps': 'other/tensor,type=float32,dimension=(string)4:0:3', 'w': '4:0:3'},
      ],
    ],
    'case': {'name': 'tensorconvert.{id1}',
             'py': 'appsrc caps={caps} format=time ! tensorconvert ! appsink name=@SINK@',
             'pyargs': ['--feed', '@DIR@/x.raw'],
             'expect': 'error', 'words': ['tensorconvert0', '{w}'],
             'issue': 'issue 17: NNStreamer caps that do not map are refused in words'},
  },
  {
    'axes': [
      [  # the elements, with what they make of two buffers of x
        {'id': 'tensordebug', 'el': 'tensordebug output=log', 'n': 'tensordebug0',
         'y': 'np.stack([x, x])'},
        {'id': 'tensorcompare', 'el': 'tensorcompare reference=@DIR@/@V@-rec.npy record=true silent=true', 'n': 'tensorcompare0',
         'y': 'np.stack([x, x])'},
        {'id': 'tensorop', 'el': 'tensorop ops=add:1', 'n': 'tensorop0',
         'y': 'np.stack([x + 1, x + 1])'},
        {'id': 'tensorview', 'el': 'tensorview ops=transpose', 'n': 'tensorview0',
         'y': 'np.stack([x.T, x.T])'},
        {'id': 'tensorreduce', 'el': 'tensorreduce axes=0', 'n': 'tensorreduce0',
         'y': 'np.stack([x.sum(0), x.sum(0)])'},
        {'id': 'tensormatmul', 'el': 'tensormatmul weights=@DIR@/w42.npy', 'n': 'tensormatmul0',
         'y': 'np.stack([x @ w, x @ w])'},
        {'id': 'npyenc', 'el': 'npyenc', 'n': 'npyenc0',
         'y': 'np.frombuffer(npy(x) * 2, np.uint8)'},
        {'id': 'tensorconvert', 'el': 'tensorconvert', 'n': 'tensorconvert0',
         'y': 'np.stack([x, x])'},
        {'id': 'tensorwindow', 'el': 'tensorwindow size=2', 'n': 'tensorwindow0',
         'y': 'np.concatenate([x, x]).reshape(3, 2, 4)'},
        {'id': 'tensornormalize', 'el': 'tensornormalize op=minmax axes=0', 'n': 'tensornormalize0',
         'y': 'np.stack([(x - x.min(0)) / (x.max(0) - x.min(0))] * 2)'},
        {'id': 'tensorsplit', 'el': 'tensorsplit indices=1', 'n': 'tensorsplit0',
         'y': 'np.stack([x[0:1], x[0:1]])'},
      ],
      [  # caps that must work
        {'id': 'minimal', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>'},
        {'id': 'dims-order', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=row-major'},
        {'id': 'framerate', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,framerate=30/1'},
        {'id': 'both', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=row-major,framerate=30/1'},
      ],
    ],
    'case': {'name': '{id0}.{id1}', 'batch': '{id0}',
             'py': 'appsrc caps={caps} format=time ! {el} ! appsink name=@SINK@',
             'pyargs': ['--feed', '@DIR@/x.raw', '--repeat', '2'],
             'expect': 'ok',
             'array': "(lambda x, w: {y})(np.arange(12, dtype=np.float32).reshape(3, 4), "
                      "np.arange(8, dtype=np.float32).reshape(4, 2))",
             'issue': 'issue 11.3: every optional field has a default'},
  },
  {
    'axes': [
      [
        {'id': 'tensordebug', 'el': 'tensordebug output=log', 'n': 'tensordebug0'},
        {'id': 'tensorcompare', 'el': 'tensorcompare reference=@DIR@/@V@-rec.npy record=true silent=true', 'n': 'tensorcompare0'},
        {'id': 'tensorop', 'el': 'tensorop ops=add:1', 'n': 'tensorop0'},
        {'id': 'tensorview', 'el': 'tensorview ops=transpose', 'n': 'tensorview0'},
        {'id': 'tensorreduce', 'el': 'tensorreduce', 'n': 'tensorreduce0'},
        {'id': 'tensormatmul', 'el': 'tensormatmul weights=@DIR@/w42.npy', 'n': 'tensormatmul0'},
        {'id': 'npyenc', 'el': 'npyenc', 'n': 'npyenc0'},
        {'id': 'tensorconvert', 'el': 'tensorconvert', 'n': 'tensorconvert0'},
        {'id': 'tensorwindow', 'el': 'tensorwindow size=2', 'n': 'tensorwindow0'},
        {'id': 'tensornormalize', 'el': 'tensornormalize', 'n': 'tensornormalize0'},
        {'id': 'tensorsplit', 'el': 'tensorsplit sections=1', 'n': 'tensorsplit0'},
      ],
      [  # caps that are wrong, and the word the refusal must name
        {'id': 'bad-type', 'caps': 'tensor/x-raw,type=float33,dims=<3,4>', 'w': 'float33'},
        {'id': 'no-type', 'caps': 'tensor/x-raw,dims=<3,4>', 'w': 'type'},
        {'id': 'no-dims', 'caps': 'tensor/x-raw,type=float32', 'w': 'dims'},
        {'id': 'negative-extent', 'caps': 'tensor/x-raw,type=float32,dims=<-3,4>', 'w': '-3'},
        {'id': 'rank9', 'caps': 'tensor/x-raw,type=float32,dims=<1,1,1,1,1,1,1,1,1>', 'w': 'dims'},
        {'id': 'column-major', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=column-major', 'w': 'column-major'},
        {'id': 'framerate-string', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,framerate=(string)abc', 'w': 'framerate'},
      ],
    ],
    'case': {'name': '{id0}.{id1}',
             'py': 'appsrc caps={caps} format=time ! {el} ! appsink name=@SINK@',
             'pyargs': ['--feed', '@DIR@/x.raw'],
             'expect': 'error', 'words': ['{n}', '{w}'],
             'issue': 'issue 11.3: which element refused what and why'},
  },
  {
    # tensorsrc: the same caps from a capsfilter
    'axes': [
      [{'id': 'tensorsrc'}],
      [
        {'id': 'minimal', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>', 'e': 'ok'},
        {'id': 'dims-order', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=row-major', 'e': 'ok'},
        {'id': 'framerate', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,framerate=30/1', 'e': 'ok'},
      ],
    ],
    'case': {'name': 'tensorsrc.{id1}', 'batch': 'src',
             'launch': 'tensorsrc pattern=arange num-buffers=2 ! {caps} ! filesink location=@OUT@',
             'expect': 'ok', 'array': 'np.stack([np.arange(12, dtype=np.float32).reshape(3, 4)] * 2)'},
  },
  {
    'axes': [
      [{'id': 'tensorsrc'}],
      [
        {'id': 'bad-type', 'caps': 'tensor/x-raw,type=float33,dims=<3,4>', 'w': 'float33'},
        {'id': 'negative-extent', 'caps': 'tensor/x-raw,type=float32,dims=<-3,4>', 'w': '-3'},
        {'id': 'rank9', 'caps': 'tensor/x-raw,type=float32,dims=<1,1,1,1,1,1,1,1,1>', 'w': 'dims'},
        {'id': 'column-major', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=column-major', 'w': 'column-major'},
        {'id': 'framerate-string', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,framerate=(string)abc', 'w': 'framerate'},
      ],
    ],
    'case': {'name': 'tensorsrc.{id1}',
             'launch': 'tensorsrc num-buffers=1 ! {caps} ! fakesink',
             'expect': 'error', 'words': ['tensorsrc0', '{w}'],
             'issue': 'issue 11.3: which element refused what and why'},
  },
  {
    # tensorstack, tensorconcat and tensorcombine: two pads from one tee of
    # the appsrc
    # (not batched: the pipelines name their tee and element)
    'axes': [
      [
        {'id': 'tensorstack', 'n': 'tensorstack0', 'el': 'tee name=t ! queue ! tensorstack0.sink_0 t. ! queue ! tensorstack0.sink_1 tensorstack name=tensorstack0',
         'y': 'np.stack([np.stack([x, x])] * 2)'},
        {'id': 'tensorconcat', 'n': 'tensorconcat0', 'el': 'tee name=t ! queue ! tensorconcat0.sink_0 t. ! queue ! tensorconcat0.sink_1 tensorconcat name=tensorconcat0 axis=1',
         'y': 'np.stack([np.concatenate([x, x], 1)] * 2)'},
        {'id': 'tensorcombine', 'n': 'tensorcombine0', 'el': 'tee name=t ! queue ! tensorcombine0.sink_0 t. ! queue ! tensorcombine0.sink_1 tensorcombine name=tensorcombine0 op=mul',
         'y': 'np.stack([x * x] * 2)'},
      ],
      [  # caps that must work
        {'id': 'minimal', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>'},
        {'id': 'dims-order', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=row-major'},
        {'id': 'framerate', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,framerate=30/1'},
        {'id': 'both', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=row-major,framerate=30/1'},
      ],
    ],
    'case': {'name': '{id0}.{id1}',
             'py': 'appsrc caps={caps} format=time ! {el} ! appsink name=@SINK@',
             'pyargs': ['--feed', '@DIR@/x.raw', '--repeat', '2'],
             'expect': 'ok',
             'array': "(lambda x: {y})(np.arange(12, dtype=np.float32).reshape(3, 4))",
             'issue': 'issue 11.3 / 14: every optional field has a default'},
  },
  {
    'axes': [
      [
        {'id': 'tensorstack', 'n': 'tensorstack0', 'el': 'tee name=t ! queue ! tensorstack0.sink_0 t. ! queue ! tensorstack0.sink_1 tensorstack name=tensorstack0'},
        {'id': 'tensorconcat', 'n': 'tensorconcat0', 'el': 'tee name=t ! queue ! tensorconcat0.sink_0 t. ! queue ! tensorconcat0.sink_1 tensorconcat name=tensorconcat0'},
        {'id': 'tensorcombine', 'n': 'tensorcombine0', 'el': 'tee name=t ! queue ! tensorcombine0.sink_0 t. ! queue ! tensorcombine0.sink_1 tensorcombine name=tensorcombine0'},
      ],
      [  # caps that are wrong, and the word the refusal must name
        {'id': 'bad-type', 'caps': 'tensor/x-raw,type=float33,dims=<3,4>', 'w': 'float33'},
        {'id': 'no-type', 'caps': 'tensor/x-raw,dims=<3,4>', 'w': 'type'},
        {'id': 'negative-extent', 'caps': 'tensor/x-raw,type=float32,dims=<-3,4>', 'w': '-3'},
        {'id': 'column-major', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=column-major', 'w': 'column-major'},
      ],
    ],
    'case': {'name': '{id0}.{id1}',
             'py': 'appsrc caps={caps} format=time ! {el} ! appsink name=@SINK@',
             'pyargs': ['--feed', '@DIR@/x.raw'],
             'expect': 'error', 'words': ['{n}', '{w}'],
             'issue': 'issue 11.3 / 14: which element refused what and why'},
  },
  {
    # The elements with several sink pads between capsfilters on both
    # sides: two tensorsrc (x = arange, f = 2s) given each set of caps by a
    # capsfilter, and after the element a capsfilter with the output's type
    # and dims (out-exact) or tensor/x-raw alone (out-any).
    'defaults': {'o': '{oc}'},
    'axes': [
      [
        {'id': 'tensorcombine', 'el': 'tensorcombine op=sub', 'n': 'tensorcombine0',
         'oc': 'tensor/x-raw,type=float32,dims=<3,4>', 'y': 'x - f'},
        {'id': 'tensorstack', 'el': 'tensorstack axis=1', 'n': 'tensorstack0',
         'oc': 'tensor/x-raw,type=float32,dims=<3,2,4>', 'y': 'np.stack([x, f], 1)'},
        {'id': 'tensorconcat', 'el': 'tensorconcat axis=-1', 'n': 'tensorconcat0',
         'oc': 'tensor/x-raw,type=float32,dims=<3,8>', 'y': 'np.concatenate([x, f], -1)'},
      ],
      [
        {'id': 'minimal', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>'},
        {'id': 'dims-order', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=row-major'},
        {'id': 'framerate', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,framerate=30/1'},
        {'id': 'both', 'caps': 'tensor/x-raw,type=float32,dims=<3,4>,dims-order=row-major,framerate=30/1'},
      ],
      [{'id': 'out-exact'}, {'id': 'out-any', 'o': 'tensor/x-raw'}],
    ],
    'case': {'name': '{id0}.filters.{id1}.{id2}',
             'launch': 'tensorsrc pattern=arange num-buffers=2 ! {caps} ! {n}.sink_0 '
                       'tensorsrc pattern=fill value=2 num-buffers=2 ! {caps} ! {n}.sink_1 '
                       '{el} name={n} ! {o} ! filesink location=@OUT@',
             'expect': 'ok',
             'array': "(lambda x, f: np.stack([{y}] * 2))(np.arange(12, dtype=np.float32).reshape(3, 4), "
                      "np.full((3, 4), 2, np.float32))",
             'issue': 'issue 14: caps negotiate with minimal caps and with capsfilters both ways'},
  },
  {
    # Between capsfilters that cannot be met: the element names what it
    # would give or what its pads disagree on.
    'defaults': {'w2': '{od}'},
    'axes': [
      [
        {'id': 'tensorcombine', 'el': 'tensorcombine', 'n': 'tensorcombine0', 'od': '<3, 4>'},
        {'id': 'tensorstack', 'el': 'tensorstack', 'n': 'tensorstack0', 'od': '<2, 3, 4>'},
        {'id': 'tensorconcat', 'el': 'tensorconcat', 'n': 'tensorconcat0', 'od': '<6, 4>'},
      ],
      [
        {'id': 'out-dims', 'c1': 'tensor/x-raw,type=float32,dims=<3,4>', 'o': 'tensor/x-raw,dims=<5,5>',
         'w': ['downstream does not accept', '< 5, 5 >']},
        {'id': 'out-type', 'c1': 'tensor/x-raw,type=float32,dims=<3,4>', 'o': 'tensor/x-raw,type=uint8',
         'w': ['downstream does not accept', 'uint8']},
        {'id': 'pad-type', 'c1': 'tensor/x-raw,type=int32,dims=<3,4>', 'o': 'tensor/x-raw',
         'w': ['sink_1 has int32', 'sink_0 has float32'], 'w2': '<3, 4>'},
      ],
    ],
    'case': {'name': '{id0}.filters.{id1}',
             'launch': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float32,dims=<3,4> ! {n}.sink_0 '
                       'tensorsrc pattern=fill value=2 num-buffers=2 ! {c1} ! {n}.sink_1 '
                       '{el} name={n} ! {o} ! fakesink',
             'expect': 'error', 'words': ['{n}', '{w}', '{w2}'],
             'issue': 'issue 14: which element refused what and why'},
  },
],
}
