#!/usr/bin/python3
"""Writes the element pages of the API reference: the SECTION:element-*
comment of every element source, and the comments of its properties
(GstTensorFoo:name:), as one markdown page that gi-docgen includes
(docs/reference/GstTn.toml.in).  The source comments stay the one place
where an element is documented.

Usage: elements-md.py OUTPUT SOURCE...
"""
import re
import sys

COMMENT = re.compile(r"/\*\*\n(.*?)\*/", re.S)


def lines_of(body):
    return [re.sub(r"^\s*\* ?", "", l) for l in body.splitlines()]


def markdown(lines):
    """gtk-doc markup to markdown: |[ ]| blocks become fenced code,
    #GstFoo:prop and %CONST become code."""
    out, code = [], False
    for l in lines:
        if l.strip() == "|[" or l.strip().startswith("|[<"):
            out.append("```sh")
            code = True
        elif l.strip() == "]|":
            out.append("```")
            code = False
        elif code:
            out.append(l)
        else:
            if re.match(r"#+ ", l):  # under the element's own heading
                l = "##" + l
            l = re.sub(r"#(Gst\w+):([\w-]+)", r"`\2`", l)
            l = re.sub(r"(?<![\w`])%(\w+)", r"`\1`", l)
            out.append(l)
    return out


def element(path):
    text = open(path).read()
    section, props = None, []
    for m in COMMENT.finditer(text):
        ls = lines_of(m.group(1))
        head = ls[0].strip() if ls else ""
        if head.startswith("SECTION:element-"):
            section = (head[len("SECTION:element-"):], ls[1:])
        else:
            pm = re.match(r"(Gst\w+):([\w-]+):$", head)
            if pm:
                props.append((pm.group(2), ls[1:]))
    return section, props


def main():
    out, sources = sys.argv[1], sys.argv[2:]
    page = ["Title: Elements", "", "# Elements", "",
            "The elements of the plugin, as their sources document them "
            "(`gst-inspect-1.0 NAME` lists the same properties with their "
            "ranges and defaults).", ""]
    found = []
    for path in sources:
        section, props = element(path)
        if section is None:
            continue
        name, body = section
        meta = [l for l in body if l.startswith("@")]
        body = [l for l in body if not l.startswith("@")]
        found.append(name)
        page += [f"## {name}", ""]
        see = [l.split(":", 1)[1].strip() for l in meta
               if l.startswith("@see_also:")]
        page += markdown(body)
        if see:
            page += ["", f"See also: {see[0]}"]
        if props:
            page += ["", f"### Properties of {name}", ""]
            for pname, pbody in props:
                text = " ".join(l.strip() for l in markdown(pbody)
                                if l.strip())
                page.append(f"- `{pname}`: {text}")
        page.append("")
    if not found:
        sys.exit("no SECTION:element-* comment found")
    index = ["## Index", ""] + [f"- [{n}](#{n})" for n in found] + [""]
    page[6:6] = index
    with open(out, "w") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()
