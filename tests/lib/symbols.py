#!/usr/bin/env python3
"""The library exports exactly its documented API.

Usage: symbols.py LIBRARY HEADER...

Every function an installed header declares with GST_TENSOR_API or TN_API
(G_DECLARE_FINAL_TYPE adds its _get_type) must be exported by LIBRARY, and
nothing else may be: a symbol that leaks out becomes ABI by accident, one
that is missing breaks applications at link time.
"""
import re
import subprocess
import sys

DECL = re.compile(r'\b(?:GST_TENSOR_API|TN_API)\s+([^;{]*?)\b(\w+)\s*\(', re.S)
FINAL = re.compile(r'\bGST_TENSOR_API\s+G_DECLARE_FINAL_TYPE\s*\(\s*\w+\s*,\s*(\w+)')


def declared(paths):
    names = {}
    for path in paths:
        text = open(path).read()
        text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
        text = '\n'.join(l for l in text.split('\n') if not l.lstrip().startswith('#'))
        for m in FINAL.finditer(text):
            names[m.group(1) + '_get_type'] = path
        for m in DECL.finditer(text):
            if m.group(2) != 'G_DECLARE_FINAL_TYPE':
                names[m.group(2)] = path
    return names


def exported(lib):
    out = subprocess.run(['nm', '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBRVW' and not parts[2].startswith('_'):
            syms.add(parts[2].split('@')[0])
    return syms


def main():
    lib, headers = sys.argv[1], sys.argv[2:]
    want = declared(headers)
    have = exported(lib)
    missing = sorted(set(want) - have)
    extra = sorted(have - set(want))
    for name in missing:
        print('declared in %s but not exported: %s' % (want[name], name))
    for name in extra:
        print('exported but not declared in an installed header: %s' % name)
    print('%d declared, %d exported' % (len(want), len(have)))
    # A parse that finds nothing would pass vacuously.
    if len(want) < 20:
        print('too few declarations found: the header parse is broken')
        return 1
    return 1 if missing or extra else 0


if __name__ == '__main__':
    sys.exit(main())
