#!/usr/bin/env python3
"""Writes the C API reference: one HTML page of the public headers'
declarations, each with the comment above it.

    python3 Scripts/c-reference.py HEADER... OUTPUT.html

The first header's opening comment opens the page; each further header's
opens its part of it, under the header's name.

The header's comments are the reference; this script only lays them out. It
reads the header's own layout: a comment at the start of a line documents the
declarations right below it (up to the next blank line or comment), a comment
followed by a blank line is prose for its section, and the banners
(/* ---- */ /* Title */ /* ---- */, or /* ---- name ---- */) are the sections.
Declarations with no comment of their own (opaque types, for instance) are
listed too. In the text, `code` is set as code and every name the header
declares links to its declaration.

Warnings, printed as HEADER:LINE: warning: ..., and the exit status is 1 when
there is any: a comment naming a dc_ or DC_ name the header does not declare,
a DC_API function with no comment, and a DC_API function the page does not list.
"""
import html
import re
import sys
from pathlib import Path

BANNER_RULE = re.compile(r"^/\* -{10,} \*/$")
BANNER_TITLE = re.compile(r"^/\* (\S.*?)\s*\*/$")
SUBSECTION = re.compile(r"^/\* -{2,} (\S.*?) -{3,} \*/$")
# Preprocessor lines that are the header's plumbing, not its API.
PLUMBING = re.compile(r"^#\s*(if|ifdef|ifndef|elif|else|endif|include|undef)\b|^#define (DISPATCH_\w+_H|DC_API)\b"
                      r"|^extern \"C\" \{|^\}$")
MENTION = re.compile(r"\b(?:dc|DC)_[A-Za-z0-9_]+")
QUOTED = re.compile(r'"[^"\n]*"')

warnings = []
current_header = ""


def warn(line, message):
    warnings.append((current_header, line, message))


def comment_text(lines):
    """The text of a /* ... */ comment given as its source lines."""
    text = []
    for index, line in enumerate(lines):
        line = line.rstrip()
        if index == len(lines) - 1:
            line = line[:line.rindex("*/")]
        line = line.split("/*", 1)[1].lstrip() if index == 0 else re.sub(r"^\s*\*( |$)", "", line)
        text.append(line.rstrip())
    while text and not text[0]:
        text.pop(0)
    while text and not text[-1]:
        text.pop()
    return text


def code_only(line, in_comment):
    """The line without its comments and literals; whether a comment is still open."""
    out = ""
    i = 0
    while i < len(line):
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return out, True
            i, in_comment = end + 2, False
        elif line.startswith("/*", i):
            in_comment, i = True, i + 2
        elif line[i] in "\"'":
            quote, i = line[i], i + 1
            while i < len(line) and line[i] != quote:
                i += 2 if line[i] == "\\" else 1
            i += 1
        else:
            out += line[i]
            i += 1
    return out, in_comment


def read_unit(lines, start):
    """One declaration from lines[start]: returns (its lines, the index after it)."""
    if lines[start].startswith("#define"):
        end = start
        while lines[end].rstrip().endswith("\\"):
            end += 1
        return lines[start:end + 1], end + 1
    depth, in_comment, end = 0, False, start
    while end < len(lines):
        code, in_comment = code_only(lines[end], in_comment)
        depth += code.count("{") + code.count("(") - code.count("}") - code.count(")")
        stripped = code.strip()
        if depth == 0 and not in_comment and stripped and stripped[-1] in ";})":
            return lines[start:end + 1], end + 1
        end += 1
    raise SystemExit(f"c-reference: the declaration at line {start + 1} does not end")


def declared_names(unit):
    """What one declaration declares: (primary names, names that link to it)."""
    first = unit[0]
    source = "\n".join(unit)
    code = code_only(source, False)[0]
    if first.startswith("#define"):
        name = re.match(r"#define (\w+)", first).group(1)
        members = re.findall(r"^\s*X\((\w+),", source, re.M)
        return [name], members
    macro = re.match(r"([A-Z][A-Z0-9_]+)\((\w+)", first)
    if macro:
        return [macro.group(2)], []
    members = []
    body = re.search(r"\{(.*)\}", code, re.S)
    if re.match(r"(typedef )?enum\b", first) and body:
        members = re.findall(r"^\s*(DC_\w+)\s*(?:=|,|$)", body.group(1), re.M)
    typedef = re.search(r"\}\s*(\w+)\s*;\s*$", code) or re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", code) \
        or re.match(r"typedef .*?(\w+)\s*;\s*$", code.strip(), re.S)
    if first.startswith("typedef") and typedef:
        return [typedef.group(1)], members
    function = re.search(r"(\w+)\s*\(", code)
    if function and not first.startswith("enum"):
        return [function.group(1)], members
    if members:
        return members, []
    raise SystemExit(f"c-reference: cannot name the declaration {first!r}")


def parse(lines):
    """The header as a list of sections: (title, [items]); an item is
    ('prose', comment lines, line) or ('entry', comment lines or None, units, line)."""
    sections = [["", []]]
    intro = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or PLUMBING.match(line):
            i += 1
            continue
        if BANNER_RULE.match(line) and i + 2 < len(lines) and BANNER_RULE.match(lines[i + 2]):
            sections.append([BANNER_TITLE.match(lines[i + 1]).group(1), []])
            i += 3
            continue
        subsection = SUBSECTION.match(line)
        if subsection:
            sections[-1][1].append(("subsection", subsection.group(1), i + 1))
            i += 1
            continue
        comment = None
        if line.startswith("/*"):
            end = i
            while "*/" not in lines[end]:
                end += 1
            comment, i = comment_text(lines[i:end + 1]), end + 1
            if intro is None and len(sections) == 1 and not sections[0][1]:
                intro = comment
                continue
            if i >= len(lines) or not lines[i].strip() or lines[i].startswith("/*") or PLUMBING.match(lines[i]):
                sections[-1][1].append(("prose", comment, end + 1))
                continue
        start, units = i, []
        while i < len(lines) and lines[i].strip() and not lines[i].startswith("/*"):
            if PLUMBING.match(lines[i]):
                i += 1
                continue
            unit, i = read_unit(lines, i)
            units.append((unit, i - len(unit) + 1))
        sections[-1][1].append(("entry", comment, units, start + 1))
    return intro or [], sections


class Names:
    """Every name the header declares, with the anchor it links to."""

    def __init__(self):
        self.anchor = {}

    def add(self, name, anchor):
        self.anchor.setdefault(name, anchor)

    def link(self, name, text):
        return f'<a href="#{self.anchor[name]}"><code>{text}</code></a>'

    def check(self, text, line):
        for quoted in QUOTED.finditer(text):
            text = text.replace(quoted.group(0), "")
        for mention in MENTION.finditer(text):
            name = mention.group(0)
            if name in self.anchor:
                continue
            if name.endswith("_") and any(known.startswith(name) for known in self.anchor):
                continue
            warn(line, f"the comment names {name}, which the header does not declare")


def inline(text, names):
    """A run of comment text as HTML: `code` as code, declared names as links."""
    out = []
    for index, part in enumerate(re.split(r"`([^`]*)`", text)):
        if index % 2:
            out.append("<code>" + html.escape(part) + "</code>")
            continue
        pieces, last = [], 0
        for match in re.finditer(MENTION.pattern + r"(\(\))?", part):
            name = match.group(0).removesuffix("()")
            if name in names.anchor and not inside_quotes(part, match.start()):
                pieces.append(html.escape(part[last:match.start()]))
                pieces.append(names.link(name, match.group(0)))
                last = match.end()
        pieces.append(html.escape(part[last:]))
        out.append("".join(pieces))
    return "".join(out)


def inside_quotes(text, position):
    return any(q.start() < position < q.end() for q in QUOTED.finditer(text))


def blocks(text, names):
    """Comment lines as HTML paragraphs, lists and preformatted examples."""
    paragraphs, current = [], []
    for line in text + [""]:
        if line.strip():
            current.append(line)
        elif current:
            paragraphs.append(current)
            current = []
    out = []
    for paragraph in paragraphs:
        if paragraph[0].lstrip().startswith("- "):
            items = []
            for line in paragraph:
                if line.lstrip().startswith("- "):
                    items.append(line.lstrip()[2:])
                else:
                    items[-1] += " " + line.strip()
            out.append("<ul>" + "".join(f"<li>{inline(item, names)}</li>" for item in items) + "</ul>")
        elif all(line.startswith("  ") for line in paragraph):
            width = min(len(line) - len(line.lstrip()) for line in paragraph)
            out.append("<pre>" + html.escape("\n".join(line[width:] for line in paragraph)) + "</pre>")
        else:
            out.append("<p>" + inline(" ".join(line.strip() for line in paragraph), names) + "</p>")
    return "\n".join(out)


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #1d1d1f; }
code, pre { font: 14px/1.4 ui-monospace, "SF Mono", Menlo, Consolas, monospace; }
pre { background: #f5f5f7; padding: .75em 1em; overflow-x: auto; border-radius: 6px; }
pre.declaration { border-left: 3px solid #0066cc; }
h2 { border-bottom: 1px solid #d2d2d7; padding-bottom: .2em; margin-top: 2em; }
h4 { margin: 1.6em 0 .4em; font-size: 1em; }
a { color: #0066cc; text-decoration: none; } a:hover { text-decoration: underline; }
nav ul { columns: 2; }
.status td { padding: 0 1em 0 0; vertical-align: top; }
"""


def render(header, intro, sections, names):
    title = Path(header).name
    out = [f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           f"<title>{title}: the C API reference</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
           f"<h1><code>{title}</code>: the C API reference</h1>\n"]
    out.append(blocks(intro, names))
    out.append("<nav><ul>" + "".join(f'<li><a href="#{slug(t)}">{html.escape(t)}</a></li>'
                                     for t, items in sections if t and items) + "</ul></nav>")
    for section_title, items in sections:
        if not items:
            continue
        if section_title:
            out.append(f'<h2 id="{slug(section_title)}">{html.escape(section_title)}</h2>')
        for item in items:
            if item[0] == "subsection":
                title = item[1][0].upper() + item[1][1:]
                out.append(f'<h3 id="{slug(item[1])}">{html.escape(title)}</h3>')
            elif item[0] == "prose":
                out.append(blocks(item[1], names))
            else:
                _, comment, units, _ = item
                primary = [n for unit, _ in units for n in declared_names(unit)[0]]
                anchors = "".join(f'<a id="{n}"></a>' for n in primary[1:])
                out.append(f'<h4 id="{primary[0]}">{anchors}' + ", ".join(f"<code>{n}</code>" for n in primary)
                           + "</h4>")
                declaration = "\n".join(line for unit, _ in units for line in unit)
                out.append(f'<pre class="declaration">{html.escape(declaration)}</pre>')
                if comment:
                    out.append(blocks(comment, names))
                statuses = re.findall(r'^\s*X\((\w+), "([^"]*)"\)', declaration, re.M)
                if statuses:
                    out.append('<table class="status">' + "".join(
                        f'<tr id="{name}"><td><code>{value}</code></td><td><code>{name}</code></td>'
                        f'<td>{html.escape(text)}</td></tr>' for value, (name, text) in enumerate(statuses))
                        + "</table>")
    out.append("</body>\n</html>\n")
    return "\n".join(out)


def main():
    global current_header
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    headers, output = sys.argv[1:-1], Path(sys.argv[-1])
    sources = [(header, Path(header).read_text().splitlines()) for header in headers]
    intro, sections, owners = None, [], []
    for header, lines in sources:
        current_header = header
        header_intro, header_sections = parse(lines)
        if intro is None:
            intro = header_intro
        else:
            header_sections.insert(0, [Path(header).name, [("prose", header_intro, 1)]])
        sections += header_sections
        owners += [header] * len(header_sections)

    names = Names()
    listed = set()
    for header, (_, items) in zip(owners, sections):
        current_header = header
        for item in items:
            if item[0] != "entry":
                continue
            _, comment, units, line = item
            for unit, unit_line in units:
                primary, members = declared_names(unit)
                for name in primary:
                    names.add(name, name)
                    listed.add(name)
                for name in members:
                    names.add(name, name if re.search(r'X\(' + name + ",", "\n".join(unit)) else primary[0])
                if unit[0].startswith("DC_API") and comment is None:
                    warn(unit_line, f"{primary[0]} has no comment")

    functions = 0
    for header, lines in sources:
        current_header = header
        # Every comment, those inside declarations included, names only what exists.
        source = "\n".join(lines)
        for comment in re.finditer(r"/\*.*?\*/", source, re.S):
            names.check(comment.group(0), source.count("\n", 0, comment.start()) + 1)
        for number, line in enumerate(lines, 1):
            function = re.match(r"DC_API\b.*?\b(dc_\w+)\s*\(", line)
            if function and function.group(1) not in listed:
                warn(number, f"{function.group(1)} is not in the reference")
        functions += sum(1 for line in lines if re.match(r"DC_API\b", line))

    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render(headers[0], intro, sections, names))
    for header, line, message in sorted(warnings):
        print(f"{header}:{line}: warning: {message}", file=sys.stderr)
    print(f"c-reference: {len(listed)} declarations ({functions} functions) from {', '.join(headers)} "
          f"in {output}")
    return 1 if warnings else 0


if __name__ == "__main__":
    sys.exit(main())
