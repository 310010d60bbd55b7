# Property matrix (issue 11, point 2 and "A property matrix test"; issue 12
# points 3 and 4 share it).
#
# Every string and enum property of every element (gst-inspect-1.0 of the
# build: tensorsrc pattern; tensordebug output; tensorop op, value, ops;
# tensorreduce op, axes; tensormatmul weights, bias, start-time-selection;
# tensorview ops; tensorcompare reference, on-mismatch, sync; npydec
# framerate, a fraction written as text; npyenc and
# tensorconvert have none) with a malformed value: gst-launch-1.0 exits
# non-zero and the ERROR line names the element, the property and the
# offending text.  An enum value GStreamer's parser refuses is named
# by the factory ("tensorsrc"), a value the element refuses by the instance
# ("tensorop0: ops=\"mull:2\" cannot be used: ...", elements/tnelement.h).
#
# Numeric properties (n-threads, eps, and the numeric-range.* cases) with
# a value the element cannot use: the same, and the ERROR also names the
# usable range.
#
# In launch lines, a value '""' is the empty string.  An empty enum value
# is not tested: GStreamer's parser reads "" as the enum's value 0 and the
# element never sees it.
{
'files': {
    'adir': "mkdir()",
    'corrupt.npy': "b'\\x93NUMPZ\\x01\\x00' + b'not a header' * 8",
    'trunc.npy': "npy(np.ones((3, 4), np.float32))[:100]",
    'complex.npy': "np.arange(6, dtype=np.complex64).reshape(2, 3)",
    'str.npy': "np.array(['abc', 'de'])",
    'shape4.npy': "np.ones(4, np.float32)",
    'w34.npy': "np.ones((3, 4), np.float32)",
    'w54.npy': "np.ones((5, 4), np.float32)",
    'wu64.npy': "np.ones((3, 4), np.uint64)",
    'b7.npy': "np.ones(7, np.float32)",
},
'product': [
  {
    'axes': [
      [  # value, what the error must name (besides element and property)
        {'id': 'pattern-typo', 'l': 'tensorsrc pattern=zeroes num-buffers=1 ! fakesink', 'w': ['tensorsrc', 'pattern', 'zeroes']},
        {'id': 'pattern-range', 'l': 'tensorsrc pattern=9 num-buffers=1 ! fakesink', 'w': ['tensorsrc', 'pattern', '9']},
        {'id': 'pattern-case', 'l': 'tensorsrc pattern=ZEROS num-buffers=1 ! fakesink', 'w': ['tensorsrc', 'pattern', 'ZEROS']},
        {'id': 'output-typo', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensordebug output=stdoutt ! fakesink', 'w': ['tensordebug', 'output', 'stdoutt']},
        {'id': 'output-range', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensordebug output=3 ! fakesink', 'w': ['tensordebug', 'output', '3']},
        {'id': 'reduce-op-typo', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorreduce op=summ ! fakesink', 'w': ['tensorreduce', 'op', 'summ']},
        {'id': 'reduce-op-range', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorreduce op=10 ! fakesink', 'w': ['tensorreduce', 'op', '10']},
        {'id': 'start-time-selection-typo', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensormatmul weights=@DIR@/w34.npy start-time-selection=zeroo ! fakesink', 'w': ['tensormatmul', 'start-time-selection', 'zeroo']},
        {'id': 'combine-op-typo', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! c.sink_0 tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! c.sink_1 tensorcombine name=c op=mull ! fakesink', 'w': ['tensorcombine', 'op', 'mull']},
        {'id': 'combine-op-range', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! c.sink_0 tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! c.sink_1 tensorcombine name=c op=18 ! fakesink', 'w': ['tensorcombine', 'op', '18']},
        {'id': 'combine-op-case', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! c.sink_0 tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! c.sink_1 tensorcombine name=c op=ADD ! fakesink', 'w': ['tensorcombine', 'op', 'ADD']},
        {'id': 'compare-on-mismatch-typo', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/w34.npy on-mismatch=errror ! fakesink', 'w': ['tensorcompare', 'on-mismatch', 'errror']},
        {'id': 'compare-on-mismatch-range', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/w34.npy on-mismatch=3 ! fakesink', 'w': ['tensorcompare', 'on-mismatch', '3']},
        {'id': 'compare-sync-typo', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/w34.npy sync=timestamps ! fakesink', 'w': ['tensorcompare', 'sync', 'timestamps']},
        {'id': 'compare-reference-typo', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/w34.nppy ! fakesink', 'w': ['tensorcompare0', 'reference', 'w34.nppy']},
        {'id': 'compare-reference-pattern', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/g-%s.npy ! fakesink', 'w': ['tensorcompare0', 'reference', 'g-%s.npy', 'integer']},
        {'id': 'compare-reference-dir', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/adir ! fakesink', 'w': ['tensorcompare0', 'reference', 'adir']},
        {'id': 'npydec-framerate-text', 'l': 'filesrc location=@DIR@/w34.npy ! npydec framerate=abc ! fakesink', 'w': ['npydec', 'framerate', 'abc']},
        {'id': 'tensor-index-range', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorconvert tensor-index=-2 ! fakesink', 'w': ['tensorconvert0', 'tensor-index', '-2']},
      ],
    ],
    'case': {'name': 'parse.{id0}', 'launch': '{l}', 'expect': 'error', 'words': '{w}',
             'issue': 'issue 11: gst-launch exits non-zero naming element, property, text'},
  },
  {
    # tensorreduce axes (issue 11.2, issue 12.3): on a float32 <2, 3>
    'axes': [
      [
        {'id': 'one'}, {'id': '1;0'}, {'id': '1x'}, {'id': 'a'}, {'id': '0,,1'},
        {'id': '1.0'}, {'id': '9999999999999'}, {'id': '2'}, {'id': '-3'},
        {'id': '0,0'}, {'id': '0,'}, {'id': ' 0 1'},
      ],
    ],
    'case': {'name': 'tensorreduce.axes={id0}',
             'launch': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorreduce \'axes="{id0}"\' ! fakesink',
             'expect': 'error', 'words': ['tensorreduce0', 'axes', '{id0}'],
             'issue': 'issue 12.3 / 11.2: an unusable axes is an error, not every axis'},
  },
  {
    # tensorop ops (issue 11.2, issue 12.4): on a float32 <2, 3>
    'axes': [
      [
        {'id': 'typo', 'v': 'mull:2'},
        {'id': 'bare-add', 'v': 'add'},
        {'id': 'bare-cast', 'v': 'cast'},
        {'id': 'cast-float128', 'v': 'cast:float128'},
        {'id': 'number-text', 'v': 'add:abc'},
        {'id': 'trailing-comma', 'v': 'add:1,'},
        {'id': 'only-comma', 'v': ','},
        {'id': 'extra-arg', 'v': 'add:1:2'},
        {'id': 'clamp-one-arg', 'v': 'clamp:1'},
        {'id': 'neg-arg', 'v': 'neg:1'},
        {'id': 'too-many-steps', 'v': 'neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg,neg', 'w': 'neg,neg'},
        {'id': 'missing-npy', 'v': 'add:@DIR@/missing.npy', 'w': 'missing.npy'},
        {'id': 'directory', 'v': 'add:@DIR@/adir', 'w': 'adir'},
        {'id': 'corrupt-npy', 'v': 'mul:@DIR@/corrupt.npy', 'w': 'corrupt.npy'},
        {'id': 'truncated-npy', 'v': 'mul:@DIR@/trunc.npy', 'w': 'trunc.npy'},
        {'id': 'complex-npy', 'v': 'add:@DIR@/complex.npy', 'w': 'complex.npy'},
        {'id': 'string-npy', 'v': 'add:@DIR@/str.npy', 'w': 'str.npy'},
        {'id': 'wrong-shape-npy', 'v': 'add:@DIR@/shape4.npy', 'w': 'shape4.npy'},
      ],
    ],
    'defaults': {'w': '{v}'},
    'case': {'name': 'tensorop.ops.{id0}',
             'launch': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorop \'ops="{v}"\' ! fakesink',
             'expect': 'error', 'words': ['tensorop0', 'ops', '{w}'],
             'issue': 'issue 12.4 / 11.2: an unusable ops is an error, never a passthrough'},
  },
  {
    # tensorview ops (issue 11.2): on a float32 <2, 3>
    'axes': [
      [
        {'id': 'unknown-step', 'v': 'flop:0'},
        {'id': 'permute-repeat', 'v': 'permute:0:0'},
        {'id': 'permute-range', 'v': 'permute:0:5'},
        {'id': 'permute-short', 'v': 'permute:0'},
        {'id': 'slice-axis', 'v': 'slice:9:0:1'},
        {'id': 'slice-step0', 'v': 'slice:0:0:2:0'},
        {'id': 'slice-text', 'v': 'slice:0:a:2'},
        {'id': 'select-range', 'v': 'select:0:99'},
        {'id': 'reshape-count', 'v': 'reshape:5:5'},
        {'id': 'reshape-two-minus1', 'v': 'reshape:-1:-1'},
        {'id': 'broadcast-mismatch', 'v': 'broadcast:7'},
        {'id': 'squeeze-not-1', 'v': 'squeeze:0'},
        {'id': 'expand-range', 'v': 'expand:9'},
        {'id': 'transpose-arg', 'v': 'transpose:1'},
        {'id': 'only-comma', 'v': ','},
        {'id': 'too-many-steps', 'v': 'reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3,reshape:2:3', 'w': 'reshape:2:3,reshape'},
      ],
    ],
    'defaults': {'w': '{v}'},
    'case': {'name': 'tensorview.ops.{id0}',
             'launch': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorview \'ops="{v}"\' ! fakesink',
             'expect': 'error', 'words': ['tensorview0', 'ops', '{w}'],
             'issue': 'issue 11.2: the parse error, not "could not link"'},
  },
  {
    # tensorop op and value (issue 11.2, 12.4)
    'axes': [
      [
        {'id': 'op-typo', 'p': 'op=mull value=2', 'w': ['op', 'mull']},
        {'id': 'op-without-value', 'p': 'op=add', 'w': ['op', 'add']},
        {'id': 'value-without-op', 'p': 'value=2', 'w': ['value', '2']},
        {'id': 'value-text', 'p': 'op=add value=abc', 'w': ['value', 'abc']},
        {'id': 'value-missing-npy', 'p': 'op=add value=@DIR@/missing.npy', 'w': ['value', 'missing.npy']},
        {'id': 'value-directory', 'p': 'op=mul value=@DIR@/adir', 'w': ['value', 'adir']},
        {'id': 'value-complex-npy', 'p': 'op=mul value=@DIR@/complex.npy', 'w': ['value', 'complex.npy']},
        {'id': 'op-empty', 'p': '\'op=""\' value=1', 'w': ['op', '""']},
        {'id': 'op-and-ops', 'p': 'op=add value=1 ops=mul:2', 'w': ['op', 'ops']},
        {'id': 'ops-and-op', 'p': 'ops=mul:2 op=add value=1', 'w': ['op', 'ops']},
      ],
    ],
    'case': {'name': 'tensorop.{id0}',
             'launch': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorop {p} ! fakesink',
             'expect': 'error', 'words': ['tensorop0', '{w}'],
             'issue': 'issue 11.2 / 12.4: op/value refused by name; op with ops conflict'},
  },
  {
    # tensormatmul weights and bias (a float32 <2, 3> stream; weights <3, 4>)
    'axes': [
      [
        {'id': 'weights-missing', 'p': 'weights=@DIR@/missing.npy', 'w': ['weights', 'missing.npy']},
        {'id': 'weights-empty', 'p': '\'weights=""\'', 'w': ['weights', '""']},
        {'id': 'weights-directory', 'p': 'weights=@DIR@/adir', 'w': ['weights', 'adir']},
        {'id': 'weights-corrupt', 'p': 'weights=@DIR@/corrupt.npy', 'w': ['weights', 'corrupt.npy']},
        {'id': 'weights-truncated', 'p': 'weights=@DIR@/trunc.npy', 'w': ['weights', 'trunc.npy']},
        {'id': 'weights-complex', 'p': 'weights=@DIR@/complex.npy', 'w': ['weights', 'complex.npy']},
        {'id': 'weights-string', 'p': 'weights=@DIR@/str.npy', 'w': ['weights', 'str.npy']},
        {'id': 'weights-wrong-shape', 'p': 'weights=@DIR@/w54.npy', 'w': ['weights', 'w54.npy', '5']},
        {'id': 'weights-wrong-dtype', 'p': 'weights=@DIR@/wu64.npy', 'w': ['weights', 'wu64.npy', 'uint64']},
        {'id': 'bias-missing', 'p': 'weights=@DIR@/w34.npy bias=@DIR@/missing.npy', 'w': ['bias', 'missing.npy']},
        {'id': 'bias-directory', 'p': 'weights=@DIR@/w34.npy bias=@DIR@/adir', 'w': ['bias', 'adir']},
        {'id': 'bias-complex', 'p': 'weights=@DIR@/w34.npy bias=@DIR@/complex.npy', 'w': ['bias', 'complex.npy']},
        {'id': 'bias-wrong-shape', 'p': 'weights=@DIR@/w34.npy bias=@DIR@/b7.npy', 'w': ['bias', '7']},
        {'id': 'bias-empty', 'p': 'weights=@DIR@/w34.npy \'bias=""\'', 'w': ['bias', '""']},
      ],
    ],
    'case': {'name': 'tensormatmul.{id0}',
             'launch': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensormatmul {p} ! fakesink',
             'expect': 'error', 'words': ['tensormatmul0', '{w}'],
             'issue': 'issue 11: weights/bias files that cannot be used'},
  },
  {
    # tensorwindow (issue 15): typos in every property (refused by the
    # parser, which names the factory) and values start() or the caps
    # refuse (named by the instance); on a float32 <2, 3>
    'axes': [
      [
        {'id': 'axis-typo', 'p': 'axis=one', 'w': ['tensorwindow', 'axis', 'one']},
        {'id': 'size-typo', 'p': 'size=4x', 'w': ['tensorwindow', 'size', '4x']},
        {'id': 'hop-typo', 'p': 'size=4 hop=two', 'w': ['tensorwindow', 'hop', 'two']},
        {'id': 'stack-typo', 'p': 'stack=ture', 'w': ['tensorwindow', 'stack', 'ture']},
        {'id': 'squeeze-typo', 'p': 'squeeze=yess', 'w': ['tensorwindow', 'squeeze', 'yess']},
        {'id': 'pad-end-typo', 'p': 'pad-end=flase', 'w': ['tensorwindow', 'pad-end', 'flase']},
        {'id': 'size-0', 'p': 'size=0', 'w': ['tensorwindow0', 'size', '"0"', '1 or more']},
        {'id': 'size-negative', 'p': 'size=-4', 'w': ['tensorwindow0', 'size', '"-4"']},
        {'id': 'hop-negative', 'p': 'size=4 hop=-1', 'w': ['tensorwindow0', 'hop', '"-1"']},
        {'id': 'squeeze-size-2', 'p': 'size=2 squeeze=true', 'w': ['tensorwindow0', 'size', '"2"', 'squeeze=true']},
        {'id': 'axis-range', 'p': 'axis=2', 'w': ['tensorwindow0', 'axis 2', 'rank 2']},
        {'id': 'axis-range-negative', 'p': 'axis=-3', 'w': ['tensorwindow0', 'axis -3', 'rank 2']},
        {'id': 'axis-range-stack', 'p': 'stack=true axis=3', 'w': ['tensorwindow0', 'axis 3', 'stacking']},
      ],
    ],
    'case': {'name': 'tensorwindow.{id0}',
             'launch': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorwindow {p} ! fakesink',
             'expect': 'error', 'words': '{w}',
             'issue': 'issue 15: a tensorwindow value that cannot be used is an error naming it'},
  },
  {
    # tensornormalize and tensorsplit (issue 15): typos in every property
    # (refused by the parser, which names the factory) and values start()
    # or the caps refuse (named by the instance); on a float32 <2, 3>
    'axes': [
      [
        {'id': 'tensornormalize.op-typo', 'e': 'tensornormalize', 'p': 'op=softmaxx', 'w': ['tensornormalize', 'op', 'softmaxx']},
        {'id': 'tensornormalize.op-range', 'e': 'tensornormalize', 'p': 'op=7', 'w': ['tensornormalize', 'op', '7']},
        {'id': 'tensornormalize.axes-typo', 'e': 'tensornormalize', 'p': 'axes=1,x', 'w': ['tensornormalize0', 'axes', '1,x']},
        {'id': 'tensornormalize.axes-range', 'e': 'tensornormalize', 'p': 'axes=2', 'w': ['tensornormalize0', 'axes', '"2"', 'rank 2']},
        {'id': 'tensornormalize.eps-typo', 'e': 'tensornormalize', 'p': 'op=l2 eps=1e-3x', 'w': ['tensornormalize', 'eps', '1e-3x']},
        {'id': 'tensornormalize.eps-unused', 'e': 'tensornormalize', 'p': 'op=minmax eps=0.1', 'w': ['tensornormalize0', 'eps', '0.1', 'op=minmax']},
        {'id': 'tensornormalize.eps-negative', 'e': 'tensornormalize', 'p': 'op=l2 eps=-0.5', 'w': ['tensornormalize0', 'eps', '-0.5']},
        {'id': 'tensornormalize.n-threads-typo', 'e': 'tensornormalize', 'p': 'n-threads=two', 'w': ['tensornormalize', 'n-threads', 'two']},
        {'id': 'tensornormalize.eps-nan', 'e': 'tensornormalize', 'p': 'op=l2 eps=nan', 'w': ['tensornormalize0', 'eps', 'nan', 'finite']},
        {'id': 'tensornormalize.eps-inf', 'e': 'tensornormalize', 'p': 'op=standardize eps=inf', 'w': ['tensornormalize0', 'eps', 'inf', 'finite']},
        {'id': 'tensorsplit.axis-typo', 'e': 'tensorsplit', 'p': 'axis=one sections=2', 'w': ['tensorsplit', 'axis', 'one']},
        {'id': 'tensorsplit.axis-range', 'e': 'tensorsplit', 'p': 'axis=2 sections=2', 'w': ['tensorsplit0', 'axis=2', 'float32 <2, 3>']},
        {'id': 'tensorsplit.axis-range-rank', 'e': 'tensorsplit', 'p': 'axis=9 sections=2', 'w': ['tensorsplit0', 'axis', '"9"', '[-8, 7]']},
        {'id': 'tensorsplit.sections-typo', 'e': 'tensorsplit', 'p': 'sections=2x', 'w': ['tensorsplit', 'sections', '2x']},
        {'id': 'tensorsplit.sections-divide', 'e': 'tensorsplit', 'p': 'axis=1 sections=2', 'w': ['tensorsplit0', 'sections=2', 'axis 1', '3']},
        {'id': 'tensorsplit.indices-typo', 'e': 'tensorsplit', 'p': 'indices=1,x', 'w': ['tensorsplit0', 'indices', '1,x']},
        {'id': 'tensorsplit.indices-overflow', 'e': 'tensorsplit', 'p': 'indices=1,99999999999999999999', 'w': ['tensorsplit0', 'indices', '99999999999999999999', '64 bits']},
        {'id': 'tensorsplit.both', 'e': 'tensorsplit', 'p': 'sections=2 indices=1', 'w': ['tensorsplit0', 'indices', 'sections=2']},
        {'id': 'tensorsplit.neither', 'e': 'tensorsplit', 'p': '', 'w': ['tensorsplit0', 'sections', 'indices']},
        {'id': 'tensorsplit.squeeze-typo', 'e': 'tensorsplit', 'p': 'sections=2 squeeze=ture', 'w': ['tensorsplit', 'squeeze', 'ture']},
        {'id': 'tensorsplit.squeeze-extent', 'e': 'tensorsplit', 'p': 'axis=1 sections=1 squeeze=true', 'w': ['tensorsplit0', 'squeeze=true', 'extent 1', '3']},
      ],
    ],
    'case': {'name': '{id0}',
             'launch': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! {e} {p} ! fakesink',
             'expect': 'error', 'words': '{w}',
             'issue': 'issue 15: a tensornormalize or tensorsplit value that cannot be used is an error naming it'},
  },
  {
    # n-threads, shared by six elements (elements/tnelement.c): any int is
    # stored, one outside 0..64 is an error when the element starts (a
    # GParamSpec range only made GLib warn and the element run with the
    # default)
    'axes': [
      [
        {'id': 'tensorop', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorop ops=add:1 n-threads=65 ! fakesink', 'w': ['tensorop0', 'n-threads', '"65"', '0 (one thread per core) to 64']},
        {'id': 'tensorreduce', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorreduce n-threads=-1 ! fakesink', 'w': ['tensorreduce0', 'n-threads', '"-1"', 'to 64']},
        {'id': 'tensornormalize', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensornormalize n-threads=1000 ! fakesink', 'w': ['tensornormalize0', 'n-threads', '"1000"', 'to 64']},
        {'id': 'tensormatmul', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensormatmul weights=@DIR@/w34.npy n-threads=65 ! fakesink', 'w': ['tensormatmul0', 'n-threads', '"65"', 'to 64']},
        {'id': 'tensorsrc', 'l': 'tensorsrc num-buffers=1 n-threads=-7 ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'n-threads', '"-7"', 'to 64']},
        {'id': 'tensorcombine', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! c.sink_0 tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! c.sink_1 tensorcombine name=c n-threads=65 ! fakesink', 'w': ['c', 'n-threads', '"65"', 'to 64']},
      ],
    ],
    'case': {'name': 'n-threads-range.{id0}', 'launch': '{l}', 'expect': 'error', 'words': '{w}',
             'issue': 'brief: a property value that cannot be used is an element error by PAUSED'},
  },
  {
    # Numeric properties once guarded by a GParamSpec range: each spec now
    # stores any value of its type, and one the element cannot use is its
    # error when it starts, naming the range (elements/tnelement.h).  With
    # the range GLib only warned and the element ran with the default (and
    # a uint took "-1" as 4294967295).
    'axes': [
      [
        {'id': 'tensorcompare.atol-negative', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/w34.npy on-mismatch=message silent=true atol=-1 ! fakesink', 'w': ['tensorcompare0', 'atol', '"-1"', 'from 0 to inf']},
        {'id': 'tensorcompare.atol-nan', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/w34.npy on-mismatch=message silent=true atol=nan ! fakesink', 'w': ['tensorcompare0', 'atol', '"nan"', 'from 0 to inf']},
        {'id': 'tensorcompare.rtol-negative', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/w34.npy on-mismatch=message silent=true rtol=-0.001 ! fakesink', 'w': ['tensorcompare0', 'rtol', '"-0.001"', 'from 0 to inf']},
        {'id': 'tensorcompare.rtol-nan', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/w34.npy on-mismatch=message silent=true rtol=nan ! fakesink', 'w': ['tensorcompare0', 'rtol', '"nan"', 'from 0 to inf']},
        {'id': 'tensorcompare.max-ulp-negative', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<3,4> ! tensorcompare reference=@DIR@/w34.npy on-mismatch=message silent=true max-ulp=-2 ! fakesink', 'w': ['tensorcompare0', 'max-ulp', '"-2"', '-1 (rtol and atol) to 9223372036854775807']},
        {'id': 'tensordebug.every-zero', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensordebug output=log every=0 ! fakesink', 'w': ['tensordebug0', 'every', '"0"', '1 (every buffer) to 2147483647']},
        {'id': 'tensordebug.every-negative', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensordebug output=log every=-1 ! fakesink', 'w': ['tensordebug0', 'every', '"-1"', '1 (every buffer) to 2147483647']},
        {'id': 'tensordebug.edgeitems-zero', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensordebug output=log edgeitems=0 ! fakesink', 'w': ['tensordebug0', 'edgeitems', '"0"', '1 to 2147483647']},
        {'id': 'tensordebug.edgeitems-negative', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensordebug output=log edgeitems=-3 ! fakesink', 'w': ['tensordebug0', 'edgeitems', '"-3"', '1 to 2147483647']},
        {'id': 'tensordebug.linewidth-zero', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensordebug output=log linewidth=0 ! fakesink', 'w': ['tensordebug0', 'linewidth', '"0"', '1 to 2147483647']},
        {'id': 'tensordebug.linewidth-negative', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensordebug output=log linewidth=-1 ! fakesink', 'w': ['tensordebug0', 'linewidth', '"-1"', '1 to 2147483647']},
        {'id': 'tensordebug.threshold-negative', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensordebug output=log threshold=-1 ! fakesink', 'w': ['tensordebug0', 'threshold', '"-1"', '0 to 9223372036854775807']},
        {'id': 'tensorreduce.ddof-negative', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorreduce op=var post-messages=true ddof=-1 ! fakesink', 'w': ['tensorreduce0', 'ddof', '"-1"', '0 (population) to 2147483647']},
        {'id': 'tensorreduce.max-message-items-above', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorreduce op=var post-messages=true max-message-items=65537 ! fakesink', 'w': ['tensorreduce0', 'max-message-items', '"65537"', '0 to 65536']},
        {'id': 'tensorreduce.max-message-items-negative', 'l': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! tensorreduce op=var post-messages=true max-message-items=-1 ! fakesink', 'w': ['tensorreduce0', 'max-message-items', '"-1"', '0 to 65536']},
        {'id': 'tensorsrc.low-inf', 'l': 'tensorsrc num-buffers=1 pattern=uniform low=-inf ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'low', '"-inf"', 'from -1.79769e+308 to 1.79769e+308']},
        {'id': 'tensorsrc.low-nan', 'l': 'tensorsrc num-buffers=1 pattern=uniform low=nan ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'low', '"nan"', 'from -1.79769e+308 to 1.79769e+308']},
        {'id': 'tensorsrc.high-inf', 'l': 'tensorsrc num-buffers=1 pattern=uniform high=inf ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'high', '"inf"', 'from -1.79769e+308 to 1.79769e+308']},
        {'id': 'tensorsrc.high-nan', 'l': 'tensorsrc num-buffers=1 pattern=uniform high=nan ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'high', '"nan"', 'from -1.79769e+308 to 1.79769e+308']},
        {'id': 'tensorsrc.mean-inf', 'l': 'tensorsrc num-buffers=1 pattern=normal mean=-inf ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'mean', '"-inf"', 'from -1.79769e+308 to 1.79769e+308']},
        {'id': 'tensorsrc.mean-nan', 'l': 'tensorsrc num-buffers=1 pattern=normal mean=nan ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'mean', '"nan"', 'from -1.79769e+308 to 1.79769e+308']},
        {'id': 'tensorsrc.stddev-negative', 'l': 'tensorsrc num-buffers=1 pattern=normal stddev=-1 ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'stddev', '"-1"', 'from 0 to 1.79769e+308']},
        {'id': 'tensorsrc.stddev-inf', 'l': 'tensorsrc num-buffers=1 pattern=normal stddev=inf ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'stddev', '"inf"', 'from 0 to 1.79769e+308']},
        {'id': 'tensorsrc.stddev-nan', 'l': 'tensorsrc num-buffers=1 pattern=normal stddev=nan ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'stddev', '"nan"', 'from 0 to 1.79769e+308']},
        {'id': 'tensorsrc.stddev-other-pattern', 'l': 'tensorsrc num-buffers=1 pattern=zeros stddev=-1 ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'stddev', '"-1"', 'from 0 to 1.79769e+308']},
        {'id': 'tensorsrc.start-nan', 'l': 'tensorsrc num-buffers=1 pattern=arange start=nan ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'start', '"nan"', 'from -inf to inf']},
        {'id': 'tensorsrc.step-nan', 'l': 'tensorsrc num-buffers=1 pattern=arange step=nan ! tensor/x-raw,type=float32,dims=<2,3> ! fakesink', 'w': ['tensorsrc0', 'step', '"nan"', 'from -inf to inf']},
        {'id': 'npydec.framerate-negative', 'l': 'filesrc location=@DIR@/w34.npy ! npydec framerate=-1/1 ! fakesink', 'w': ['npydec0', 'framerate', '"-1/1"', '0/1 (untimed) to 2147483647/1']},
      ],
    ],
    'case': {'name': 'numeric-range.{id0}', 'launch': '{l}', 'expect': 'error', 'words': '{w}',
             'issue': 'brief: a property value that cannot be used is an element error by PAUSED'},
  },
  {
    # ... and the values that are usable although GLib refused them before:
    # a fill of NaN is a legitimate tensor (tensorsrc value)
    'axes': [
      [
        {'id': 'tensorsrc.value-nan', 'l': 'tensorsrc num-buffers=1 pattern=fill value=nan ! tensor/x-raw,type=float32,dims=<2,3> ! filesink location=@OUT@', 'a': 'np.full((2, 3), np.nan, np.float32)'},
      ],
    ],
    'case': {'name': 'numeric-usable.{id0}', 'launch': '{l}', 'expect': 'ok', 'array': '{a}',
             'issue': 'brief: value=nan is a legitimate fill'},
  },
  {
    # tensorstack and tensorconcat (issue 14): typos in every property
    # (refused by the parser, which names the factory) and an axis the
    # caps refuse (named by the instance); two float32 <2, 3> pads
    'axes': [
      [
        {'id': 'tensorstack.axis-typo', 'e': 'tensorstack', 'p': 'axis=one', 'w': ['tensorstack', 'axis', 'one']},
        {'id': 'tensorstack.axis-float', 'e': 'tensorstack', 'p': 'axis=1.5', 'w': ['tensorstack', 'axis', '1.5']},
        {'id': 'tensorstack.axis-range', 'e': 'tensorstack', 'p': 'axis=9', 'w': ['tensorstack0', 'axis', '"9"', '[-8, 7]']},
        {'id': 'tensorstack.sync-typo', 'e': 'tensorstack', 'p': 'sync=latset', 'w': ['tensorstack', 'sync', 'latset']},
        {'id': 'tensorstack.sync-range', 'e': 'tensorstack', 'p': 'sync=2', 'w': ['tensorstack', 'sync', '2']},
        {'id': 'tensorstack.latency-typo', 'e': 'tensorstack', 'p': 'latency=1ms', 'w': ['tensorstack', 'latency', '1ms']},
        {'id': 'tensorstack.start-time-selection-typo', 'e': 'tensorstack', 'p': 'start-time-selection=frist', 'w': ['tensorstack', 'start-time-selection', 'frist']},
        {'id': 'tensorstack.axis-rank', 'e': 'tensorstack', 'p': 'axis=3', 'w': ['tensorstack0', 'axis=3', 'sink_0', 'float32 <2, 3>']},
        {'id': 'tensorstack.axis-rank-negative', 'e': 'tensorstack', 'p': 'axis=-4', 'w': ['tensorstack0', 'axis=-4', 'sink_0']},
        {'id': 'tensorconcat.axis-typo', 'e': 'tensorconcat', 'p': 'axis=one', 'w': ['tensorconcat', 'axis', 'one']},
        {'id': 'tensorconcat.axis-float', 'e': 'tensorconcat', 'p': 'axis=1.5', 'w': ['tensorconcat', 'axis', '1.5']},
        {'id': 'tensorconcat.axis-range', 'e': 'tensorconcat', 'p': 'axis=9', 'w': ['tensorconcat0', 'axis', '"9"', '[-8, 7]']},
        {'id': 'tensorconcat.sync-typo', 'e': 'tensorconcat', 'p': 'sync=latset', 'w': ['tensorconcat', 'sync', 'latset']},
        {'id': 'tensorconcat.sync-range', 'e': 'tensorconcat', 'p': 'sync=2', 'w': ['tensorconcat', 'sync', '2']},
        {'id': 'tensorconcat.latency-typo', 'e': 'tensorconcat', 'p': 'latency=1ms', 'w': ['tensorconcat', 'latency', '1ms']},
        {'id': 'tensorconcat.start-time-selection-typo', 'e': 'tensorconcat', 'p': 'start-time-selection=frist', 'w': ['tensorconcat', 'start-time-selection', 'frist']},
        {'id': 'tensorconcat.axis-rank', 'e': 'tensorconcat', 'p': 'axis=3', 'w': ['tensorconcat0', 'axis=3', 'sink_0', 'float32 <2, 3>']},
        {'id': 'tensorconcat.axis-rank-negative', 'e': 'tensorconcat', 'p': 'axis=-4', 'w': ['tensorconcat0', 'axis=-4', 'sink_0']},
      ],
    ],
    'case': {'name': '{id0}',
             'launch': 'tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! {e}0.sink_0 tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,dims=<2,3> ! {e}0.sink_1 {e} name={e}0 {p} ! fakesink',
             'expect': 'error', 'words': '{w}',
             'issue': 'issue 14: a tensorstack/tensorconcat value that cannot be used is an error naming it'},
  },
],
}
