# Sink matrix (issue 11, point 1 and "A sink matrix test").
#
# Every element that can emit a view (axis 0), through every element that
# passes buffers on (axis 1), into every sink that does not read the layout
# meta (axis 2): the bytes at the sink are NumPy's dense C-order array.
# Then the positive side: with a consumer that reads the meta (tensorreduce)
# after the same passthroughs, the producer copies nothing (bytes-copied 0)
# and the reduction is still NumPy's.
#
# x is one tensor; every producer emits nbuf of them.  acc is the dtype
# tensorreduce's sum gives for x's dtype.
{
'files': {
    # int16 <3,4,5> stored in Fortran order: npydec emits a strided view
    'fortran.npy': "fortran(np.arange(60, dtype=np.int16).reshape(3, 4, 5))",
    # two RGB frames 5 wide, 3 high: rows padded to 16 bytes with 0xEE
    'rgb5x3.raw': "raw(np.concatenate([np.pad(np.arange(45, dtype=np.uint8)"
                  ".reshape(3, 15), ((0, 0), (0, 1)), constant_values=0xEE)] * 2))",
},
'product': [
  {
    'axes': [
      [  # producers of views
        {'id': 'permute', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<2,3,4> ! tensorview name=@V@ ops=permute:2:0:1',
         'x': 'np.arange(24, dtype=np.int16).reshape(2, 3, 4).transpose(2, 0, 1)', 'nbuf': '2', 'acc': 'np.int64'},
        {'id': 'transpose', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float32,dims=<3,5> ! tensorview name=@V@ ops=transpose',
         'x': 'np.arange(15, dtype=np.float32).reshape(3, 5).T', 'nbuf': '2', 'acc': 'np.float32'},
        {'id': 'slice', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int32,dims=<3,7> ! tensorview name=@V@ ops=slice:1:1:7:2',
         'x': 'np.arange(21, dtype=np.int32).reshape(3, 7)[:, 1:7:2]', 'nbuf': '2', 'acc': 'np.int64'},
        {'id': 'select', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=uint8,dims=<2,3,4> ! tensorview name=@V@ ops=select:1:1',
         'x': 'np.arange(24, dtype=np.uint8).reshape(2, 3, 4)[:, 1]', 'nbuf': '2', 'acc': 'np.uint64'},
        {'id': 'broadcast', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float64,dims=<3,1> ! tensorview name=@V@ ops=broadcast:2:3:4',
         'x': 'np.broadcast_to(np.arange(3, dtype=np.float64).reshape(3, 1), (2, 3, 4))', 'nbuf': '2', 'acc': 'np.float64'},
        {'id': 'expand', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<4,3> ! tensorview name=@V@ ops=slice:0:0:4:2,expand:1',
         'x': 'np.arange(12, dtype=np.int16).reshape(4, 3)[0:4:2][:, None]', 'nbuf': '2', 'acc': 'np.int64'},
        {'id': 'rgb-padded', 'src': 'filesrc location=@DIR@/rgb5x3.raw ! rawvideoparse format=rgb width=5 height=3 framerate=1/1 ! tensorconvert name=@V@',
         'x': 'np.arange(45, dtype=np.uint8).reshape(3, 5, 3)', 'nbuf': '2', 'acc': 'np.uint64'},
        {'id': 'npy-fortran', 'src': 'filesrc location=@DIR@/fortran.npy ! npydec',
         'x': 'np.arange(60, dtype=np.int16).reshape(3, 4, 5)', 'nbuf': '1', 'acc': 'np.int64'},
        # tensorwindow along axis 1: windows inside one input are strided
        # views of it; windows across inputs strided views of its ring
        {'id': 'window-inside', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<2,6,4> ! tensorwindow name=@V@ axis=1 size=2',
         'x': '(lambda a: np.stack([a[:, s:s + 2] for s in (0, 2, 4)] * 2))(np.arange(48, dtype=np.int16).reshape(2, 6, 4))', 'nbuf': '1', 'acc': 'np.int64'},
        {'id': 'window-ring', 'src': 'tensorsrc pattern=arange num-buffers=3 ! tensor/x-raw,type=float32,dims=<2,3,4> ! tensorwindow name=@V@ axis=1 size=4 hop=2',
         'x': '(lambda a: np.stack([a[:, s:s + 4] for s in (0, 2, 4)]))(np.concatenate([np.arange(24, dtype=np.float32).reshape(2, 3, 4)] * 3, axis=1))', 'nbuf': '1', 'acc': 'np.float32'},
        # tensorsplit along axis 1 and the last axis: the parts are strided
        # views of the input (src_1 and src_2 taken; the others unlinked)
        {'id': 'split-axis1', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<2,6,4> ! tensorsplit name=@V@ axis=1 indices=2,5 @V@.src_1',
         'x': 'np.split(np.arange(48, dtype=np.int16).reshape(2, 6, 4), [2, 5], axis=1)[1]', 'nbuf': '2', 'acc': 'np.int64'},
        {'id': 'split-plane', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float32,dims=<3,4,3> ! tensorsplit name=@V@ axis=-1 sections=3 squeeze=true @V@.src_2',
         'x': 'np.arange(36, dtype=np.float32).reshape(3, 4, 3)[:, :, 2]', 'nbuf': '2', 'acc': 'np.float32'},
      ],
      [  # what may stand between
        {'id': 'none', 'mid': ''},
        {'id': 'tensordebug', 'mid': '! tensordebug output=log'},
        {'id': 'tensorcompare', 'mid': '! tensorcompare reference=@DIR@/@V@-rec.npy record=true silent=true'},
        {'id': 'identity', 'mid': '! identity'},
        {'id': 'queue', 'mid': '! queue'},
        {'id': 'tee', 'mid': '! tee'},
        {'id': 'capsfilter', 'mid': '! capsfilter caps=tensor/x-raw'},
        {'id': 'tensorop-empty', 'mid': '! tensorop'},
        {'id': 'tensorop-add0', 'mid': '! tensorop ops=add:0'},
        {'id': 'tensorview-empty', 'mid': '! tensorview'},
        {'id': 'debug-queue-debug', 'mid': '! tensordebug output=log ! queue ! tensordebug output=log'},
      ],
      [  # sinks that read dense tensors only
        {'id': 'filesink', 'launch': '{src} {mid} ! filesink location=@OUT@'},
        {'id': 'multifilesink', 'launch': '{src} {mid} ! multifilesink location=@OUT@.%05d', 'collect': 'multifile'},
        {'id': 'gdppay', 'launch': '{src} {mid} ! gdppay ! filesink location=@OUT@.gdp',
         'then': 'filesrc location=@OUT@.gdp ! gdpdepay ! filesink location=@OUT@',
         'needs': ['gdppay', 'gdpdepay']},
        {'id': 'appsink', 'py': '{src} {mid} ! appsink name=@SINK@'},
      ],
    ],
    'case': {'name': '{id0}.{id1}.{id2}', 'batch': '{id1}.{id2}',
             'expect': 'ok', 'array': 'np.stack([{x}] * {nbuf})',
             'issue': 'issue 11.1'},
  },
  {
    # tensorconvert into NNStreamer's other/tensors (docs/caps.md,
    # "NNStreamer caps"): NNStreamer reads dense tensors only, so a view
    # becomes one dense copy; and back into tensor/x-raw, the same bytes
    'axes': [
      [
        {'id': 'permute', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<2,3,4> ! tensorview name=@V@ ops=permute:2:0:1',
         'x': 'np.arange(24, dtype=np.int16).reshape(2, 3, 4).transpose(2, 0, 1)', 'nbuf': '2'},
        {'id': 'slice', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int32,dims=<3,7> ! tensorview name=@V@ ops=slice:1:1:7:2',
         'x': 'np.arange(21, dtype=np.int32).reshape(3, 7)[:, 1:7:2]', 'nbuf': '2'},
        {'id': 'rgb-padded', 'src': 'filesrc location=@DIR@/rgb5x3.raw ! rawvideoparse format=rgb width=5 height=3 framerate=1/1 ! tensorconvert name=@V@',
         'x': 'np.arange(45, dtype=np.uint8).reshape(3, 5, 3)', 'nbuf': '2'},
      ],
      [
        {'id': 'to-nns', 'mid': '! tensorconvert ! other/tensors'},
        {'id': 'nns-and-back', 'mid': '! tensorconvert ! other/tensor ! tensorconvert'},
      ],
      [
        {'id': 'filesink', 'launch': '{src} {mid} ! filesink location=@OUT@'},
        {'id': 'gdppay', 'launch': '{src} {mid} ! gdppay ! filesink location=@OUT@.gdp',
         'then': 'filesrc location=@OUT@.gdp ! gdpdepay ! filesink location=@OUT@',
         'needs': ['gdppay', 'gdpdepay']},
        {'id': 'appsink', 'py': '{src} {mid} ! appsink name=@SINK@'},
      ],
    ],
    'case': {'name': 'nns.{id0}.{id1}.{id2}', 'batch': 'nns.{id1}.{id2}',
             'expect': 'ok', 'array': 'np.stack([{x}] * {nbuf})',
             'issue': 'issue 17: a view reaches NNStreamer dense'},
  },
  {
    # tensorcombine reads views (the layout meta) and writes a dense
    # output: a view added to itself (both pads from one tee, so neither
    # buffer may be written in place) into the sinks that read dense
    # tensors only
    'axes': [
      [
        {'id': 'permute', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<2,3,4> ! tensorview name=@V@ ops=permute:2:0:1',
         'x': 'np.arange(24, dtype=np.int16).reshape(2, 3, 4).transpose(2, 0, 1)', 'nbuf': '2'},
        {'id': 'slice', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int32,dims=<3,7> ! tensorview name=@V@ ops=slice:1:1:7:2',
         'x': 'np.arange(21, dtype=np.int32).reshape(3, 7)[:, 1:7:2]', 'nbuf': '2'},
        {'id': 'broadcast', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float64,dims=<3,1> ! tensorview name=@V@ ops=broadcast:2:3:4',
         'x': 'np.broadcast_to(np.arange(3, dtype=np.float64).reshape(3, 1), (2, 3, 4))', 'nbuf': '2'},
        {'id': 'rgb-padded', 'src': 'filesrc location=@DIR@/rgb5x3.raw ! rawvideoparse format=rgb width=5 height=3 framerate=1/1 ! tensorconvert name=@V@',
         'x': 'np.arange(45, dtype=np.uint8).reshape(3, 5, 3)', 'nbuf': '2'},
      ],
      [
        {'id': 'add-self', 'mid': '! tee name=t t. ! queue ! c.sink_0 t. ! queue ! c.sink_1 tensorcombine name=c op=add'},
      ],
      [
        {'id': 'filesink', 'launch': '{src} {mid} ! filesink location=@OUT@'},
        {'id': 'gdppay', 'launch': '{src} {mid} ! gdppay ! filesink location=@OUT@.gdp',
         'then': 'filesrc location=@OUT@.gdp ! gdpdepay ! filesink location=@OUT@',
         'needs': ['gdppay', 'gdpdepay']},
        {'id': 'appsink', 'py': '{src} {mid} ! appsink name=@SINK@'},
      ],
    ],
    # no batch: the tee and the element are named, once per pipeline
    'case': {'name': 'tensorcombine.{id0}.{id2}',
             'expect': 'ok', 'array': 'np.stack([{x} + {x}] * {nbuf})',
             'issue': 'issue 14: tensorcombine reads views, writes dense'},
  },
  {
    # the positive side: a consumer that reads the meta after the same
    # passthroughs; nothing copied (tensorop ops=add:0 reads dense tensors
    # only, so it is left out)
    'axes': [
      [  # the producers above that count what they copy (bytes-copied)
        {'id': 'permute', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<2,3,4> ! tensorview name=@V@ ops=permute:2:0:1',
         'x': 'np.arange(24, dtype=np.int16).reshape(2, 3, 4).transpose(2, 0, 1)', 'nbuf': '2', 'acc': 'np.int64'},
        {'id': 'transpose', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float32,dims=<3,5> ! tensorview name=@V@ ops=transpose',
         'x': 'np.arange(15, dtype=np.float32).reshape(3, 5).T', 'nbuf': '2', 'acc': 'np.float32'},
        {'id': 'slice', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int32,dims=<3,7> ! tensorview name=@V@ ops=slice:1:1:7:2',
         'x': 'np.arange(21, dtype=np.int32).reshape(3, 7)[:, 1:7:2]', 'nbuf': '2', 'acc': 'np.int64'},
        {'id': 'select', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=uint8,dims=<2,3,4> ! tensorview name=@V@ ops=select:1:1',
         'x': 'np.arange(24, dtype=np.uint8).reshape(2, 3, 4)[:, 1]', 'nbuf': '2', 'acc': 'np.uint64'},
        {'id': 'broadcast', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float64,dims=<3,1> ! tensorview name=@V@ ops=broadcast:2:3:4',
         'x': 'np.broadcast_to(np.arange(3, dtype=np.float64).reshape(3, 1), (2, 3, 4))', 'nbuf': '2', 'acc': 'np.float64'},
        {'id': 'expand', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<4,3> ! tensorview name=@V@ ops=slice:0:0:4:2,expand:1',
         'x': 'np.arange(12, dtype=np.int16).reshape(4, 3)[0:4:2][:, None]', 'nbuf': '2', 'acc': 'np.int64'},
        {'id': 'rgb-padded', 'src': 'filesrc location=@DIR@/rgb5x3.raw ! rawvideoparse format=rgb width=5 height=3 framerate=1/1 ! tensorconvert name=@V@',
         'x': 'np.arange(45, dtype=np.uint8).reshape(3, 5, 3)', 'nbuf': '2', 'acc': 'np.uint64'},
        # tensorsplit along axis 1 and the last axis: the parts are strided
        # views of the input (src_1 and src_2 taken; the others unlinked)
        {'id': 'split-axis1', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<2,6,4> ! tensorsplit name=@V@ axis=1 indices=2,5 @V@.src_1',
         'x': 'np.split(np.arange(48, dtype=np.int16).reshape(2, 6, 4), [2, 5], axis=1)[1]', 'nbuf': '2', 'acc': 'np.int64'},
        {'id': 'split-plane', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float32,dims=<3,4,3> ! tensorsplit name=@V@ axis=-1 sections=3 squeeze=true @V@.src_2',
         'x': 'np.arange(36, dtype=np.float32).reshape(3, 4, 3)[:, :, 2]', 'nbuf': '2', 'acc': 'np.float32'},
      ],
      [
        {'id': 'none', 'mid': ''},
        {'id': 'tensordebug', 'mid': '! tensordebug output=log'},
        {'id': 'tensorcompare', 'mid': '! tensorcompare reference=@DIR@/@V@-rec.npy record=true silent=true'},
        {'id': 'identity', 'mid': '! identity'},
        {'id': 'queue', 'mid': '! queue'},
        {'id': 'tee', 'mid': '! tee'},
        {'id': 'capsfilter', 'mid': '! capsfilter caps=tensor/x-raw'},
        {'id': 'tensorop-empty', 'mid': '! tensorop'},
        {'id': 'tensorview-empty', 'mid': '! tensorview'},
      ],
    ],
    'case': {'name': 'zerocopy.{id0}.{id1}',
             'py': '{src} {mid} ! tensorreduce axes=0 ! appsink name=@SINK@',
             'pyargs': ['--prop', '@V@.bytes-copied'], 'batch': '{id1}',
             'expect': 'ok',
             'array': 'np.stack([np.sum({x}, axis=0, dtype={acc})] * {nbuf})',
             'check': "props.get('@V@.bytes-copied') == 0",
             'issue': 'issue 11: a consumer that reads the meta: zero bytes copied'},
  },
  {
    # (not batched: the pipelines name their tee and element)
    # tensorstack and tensorconcat read views (the layout meta) and write
    # one dense output: a view stacked or joined with itself (both pads
    # from one tee) into the sinks that read dense tensors only
    'axes': [
      [
        {'id': 'permute', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int16,dims=<2,3,4> ! tensorview name=@V@ ops=permute:2:0:1',
         'x': 'np.arange(24, dtype=np.int16).reshape(2, 3, 4).transpose(2, 0, 1)', 'nbuf': '2'},
        {'id': 'slice', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=int32,dims=<3,7> ! tensorview name=@V@ ops=slice:1:1:7:2',
         'x': 'np.arange(21, dtype=np.int32).reshape(3, 7)[:, 1:7:2]', 'nbuf': '2'},
        {'id': 'broadcast', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float64,dims=<3,1> ! tensorview name=@V@ ops=broadcast:2:3:4',
         'x': 'np.broadcast_to(np.arange(3, dtype=np.float64).reshape(3, 1), (2, 3, 4))', 'nbuf': '2'},
        {'id': 'rgb-padded', 'src': 'filesrc location=@DIR@/rgb5x3.raw ! rawvideoparse format=rgb width=5 height=3 framerate=1/1 ! tensorconvert name=@V@',
         'x': 'np.arange(45, dtype=np.uint8).reshape(3, 5, 3)', 'nbuf': '2'},
      ],
      [
        {'id': 'stack-0', 'mid': '! tee name=t t. ! queue ! s.sink_0 t. ! queue ! s.sink_1 tensorstack name=s axis=0',
         'f': 'lambda a: np.stack([a, a], 0)'},
        {'id': 'stack-last', 'mid': '! tee name=t t. ! queue ! s.sink_0 t. ! queue ! s.sink_1 tensorstack name=s axis=-1',
         'f': 'lambda a: np.stack([a, a], -1)'},
        {'id': 'concat-last', 'mid': '! tee name=t t. ! queue ! s.sink_0 t. ! queue ! s.sink_1 tensorconcat name=s axis=-1',
         'f': 'lambda a: np.concatenate([a, a], -1)'},
      ],
      [
        {'id': 'filesink', 'launch': '{src} {mid} ! filesink location=@OUT@'},
        {'id': 'gdppay', 'launch': '{src} {mid} ! gdppay ! filesink location=@OUT@.gdp',
         'then': 'filesrc location=@OUT@.gdp ! gdpdepay ! filesink location=@OUT@',
         'needs': ['gdppay', 'gdpdepay']},
        {'id': 'appsink', 'py': '{src} {mid} ! appsink name=@SINK@'},
      ],
    ],
    'case': {'name': 'stack.{id0}.{id1}.{id2}',
             'expect': 'ok', 'array': 'np.stack([({f})({x})] * {nbuf})',
             'issue': 'issue 14: tensorstack and tensorconcat read views, write dense'},
  },
  {
    # The float32 kernels of session 7 (the lone-cast path, bfloat16's
    # table, softmax in one pass, standardize's one-read moments) read a
    # view or a dense tensor and write dense: followed by a debug, a queue
    # and an identity into sinks that read dense bytes only.  The casts
    # are exact (small integers); the normalisations are checked against
    # NumPy in float64 within rtol 1e-5.
    'axes': [
      [
        {'id': 'transpose', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float32,dims=<3,5> ! tensorview ops=transpose',
         'x': 'np.arange(15, dtype=np.float32).reshape(3, 5).T', 'nbuf': '2'},
        {'id': 'dense', 'src': 'tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type=float32,dims=<4,6>',
         'x': 'np.arange(24, dtype=np.float32).reshape(4, 6)', 'nbuf': '2'},
      ],
      [
        {'id': 'cast-float16', 'op': '! tensorop ops=cast:float16', 'expect': 'ok', 'dt': 'np.float16',
         'f': 'lambda a: a.astype(np.float16)'},
        {'id': 'cast-bfloat16', 'op': '! tensorop ops=cast:bfloat16', 'expect': 'ok', 'dt': 'np.uint16',
         'f': 'lambda a: (np.ascontiguousarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)'},
        {'id': 'softmax', 'op': '! tensornormalize op=softmax axes=-1', 'expect': 'clean', 'dt': 'np.float32',
         'f': 'lambda a: np.exp(a - a.max(-1, keepdims=True)) / np.exp(a - a.max(-1, keepdims=True)).sum(-1, keepdims=True)'},
        {'id': 'standardize', 'op': '! tensornormalize op=standardize axes=0,1', 'expect': 'clean', 'dt': 'np.float32',
         'f': 'lambda a: (a - a.mean((-2, -1), keepdims=True)) / np.sqrt(a.var((-2, -1), keepdims=True) + 1e-5)'},
      ],
      [
        {'id': 'filesink', 'launch': '{src} {op} ! tensordebug output=log ! queue ! identity ! filesink location=@OUT@'},
        {'id': 'gdppay', 'launch': '{src} {op} ! tensordebug output=log ! queue ! identity ! gdppay ! filesink location=@OUT@.gdp',
         'then': 'filesrc location=@OUT@.gdp ! gdpdepay ! filesink location=@OUT@',
         'needs': ['gdppay', 'gdpdepay']},
        {'id': 'appsink', 'py': '{src} {op} ! tensordebug output=log ! queue ! identity ! appsink name=@SINK@'},
      ],
    ],
    'case': {'name': 'kernels.{id0}.{id1}.{id2}', 'collect': 'file',
             'expect': '{expect}', 'array': 'np.stack([({f})({x})] * {nbuf})',
             # f in float64 for the normalisations ('clean'); the casts
             # are compared byte for byte ('ok') and here again
             'check': 'out is not None and np.allclose(np.frombuffer(out, {dt}).astype(np.float64), '
                      'np.stack([({f})(np.asarray({x}, np.float64))] * {nbuf}).astype(np.float64).ravel(), rtol=1e-5, atol=1e-6)',
             'issue': 'issues 15 and 18: the new float32 kernels write dense bytes'},
  },
],
}
