#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The docs check (make check's host side):
#
# (a) every repository path the docs name exists in the tree. Docs are
#     README.md, Documentation/*.rst and man/*.[1-9]. A path is a token
#     that starts with a top-level directory of the repository and a
#     slash (net/bind.c, selftests/tests/) or is a top-level file
#     (Makefile), found in ``literals``, `spans` and `link <targets>`_ of
#     the .rst pages, in `spans` and ``` blocks of README.md, and anywhere
#     in the man pages. A bare page name (rds.rst) must be a page of
#     Documentation/, and a bare source name of ours (rds_*.c, rds_*.h)
#     a file somewhere in the tree. Not paths: tokens with glob or
#     template characters (* ? [ { < $ ...), placeholders in capitals
#     (selftests/tests/NAME.sh), and anything under results/ or
#     /proc, /sys, /dev, /lib/modules... (absolute: the guest's or the
#     host's, never the tree's). A path may name what the build makes
#     from a tracked source (selftests/fuzz/rds-fuzz from rds-fuzz.c,
#     net/rds.ko from net/Kbuild). The few remaining exceptions are in
#     ALLOW below, each with its reason.
# (b) scripts/kernel-doc -none -Werror over our kernel sources reports
#     nothing: the kernel's own script, from the headers tree
#     (linux-kbuild-6.1 ships it as /usr/lib/linux-kbuild-6.1/scripts/
#     kernel-doc, reached through /lib/modules/*/build/scripts/).
# (c) docutils parses every Documentation/*.rst without a warning: a
#     malformed table or a short underline renders wrong, or not at all
#     (python3-docutils, from scripts/deps.sh).
#
# Exits non-zero on any finding; prints each as FILE: problem.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO"

rc=0

# (a) ------------------------------------------------------------------
# ALLOW: "path<TAB>reason"; a path here is accepted as named.
ALLOW=$(cat <<'EOF'
net/rds/	Linux's in-tree RDS sources (net/rds/bind.c...), not ours
tools/testing/	Linux's kselftests (tools/testing/selftests/net/rds)
selftests/bin/	made by `make selftests` from selftests/tests/*.c
selftests/bin	made by `make selftests` from selftests/tests/*.c
rds_single_path.h	a header of Linux's RDS, not ours
EOF
)
export ALLOW
python3 - <<'PY' || rc=1
import os, re, subprocess, sys

tracked = subprocess.run(['git', 'ls-files', '-z'], capture_output=True,
                         check=True).stdout.decode().split('\0')
tracked = [t for t in tracked if t]
files = set(tracked)
dirs = set()
for t in tracked:
    parts = t.split('/')
    for i in range(1, len(parts)):
        dirs.add('/'.join(parts[:i]))
top_dirs = sorted({t.split('/')[0] for t in tracked if '/' in t})
top_files = sorted({t for t in tracked if '/' not in t})
basenames = {os.path.basename(t) for t in tracked}
pages = {os.path.basename(t) for t in tracked
         if t.startswith('Documentation/') and t.endswith('.rst')}
pages |= {f for f in os.listdir('Documentation') if f.endswith('.rst')}
allow = [l.split('\t')[0] for l in os.environ['ALLOW'].splitlines() if l]

path_re = re.compile(r'^(?:%s)/[A-Za-z0-9_.,/+-]*$' %
                     '|'.join(re.escape(d) for d in top_dirs))
template = re.compile(r'[*?\[\]{}<>$%|=~]|[A-Z]{2,}')


def allowed(p):
    return any(p == a or (a.endswith('/') and
                          (p.startswith(a) or p == a[:-1]))
               for a in allow)


def built(p):
    """Something the build makes from a tracked source."""
    if p + '.c' in files:
        return True
    if p.endswith('.ko'):
        d = os.path.dirname(p)
        return d + '/Kbuild' in files
    return False


checked = set()


def check_path(p):
    p = p.rstrip('.,;:)')
    checked.add(p)
    if p in files or p.rstrip('/') in dirs or p in top_files:
        return None
    # Not committed yet, but there: a new page in a working copy.
    if os.path.exists(p):
        return None
    if allowed(p) or built(p):
        return None
    return 'names %s, which is not in the tree' % p


def check_token(tok):
    tok = tok.strip().strip('()"\'')
    tok = tok.rstrip('.,;:')
    if not tok:
        return None
    if tok in files or tok.rstrip('/') in dirs:
        checked.add(tok)
        return None
    if template.search(tok):
        return None
    # "net/bind.c:87" and "file.c:func()" name a place in a file.
    tok = re.sub(r':[0-9-]+$', '', tok)
    if path_re.match(tok) or tok in top_files:
        return check_path(tok)
    if re.fullmatch(r'[a-z0-9_-]+\.rst', tok):
        if tok in pages or allowed(tok):
            return None
        return 'names page %s, which is not in Documentation/' % tok
    if re.fullmatch(r'rds_[a-z0-9_]+\.[ch]', tok):
        if tok in basenames or allowed(tok):
            return None
        return 'names %s, which is nowhere in the tree' % tok
    return None


def tokens_rst(text):
    text = re.sub(r'<([^<>`]+)>`_', r' \1 ', text)          # link targets
    for m in re.finditer(r'``(.+?)``', text, re.S):
        yield m.group(1)
    rest = re.sub(r'``(.+?)``', ' ', text, flags=re.S)
    for m in re.finditer(r'`([^`]+)`', rest):
        yield m.group(1)


def tokens_md(text):
    for m in re.finditer(r'^```[^\n]*\n(.*?)^```', text, re.S | re.M):
        yield from m.group(1).split()
    rest = re.sub(r'^```[^\n]*\n(.*?)^```', ' ', text, flags=re.S | re.M)
    for m in re.finditer(r'\]\(([^)\s]+)\)', rest):             # links
        yield m.group(1)
    for m in re.finditer(r'`([^`]+)`', rest):
        yield m.group(1)


def tokens_man(text):
    text = re.sub(r'\\f[BIRP]', '', text)
    text = text.replace('\\-', '-').replace('\\&', '')
    for line in text.splitlines():
        if line.startswith('.\\"'):
            continue
        yield from line.split()


docs = sorted(t for t in tracked
              if t == 'README.md'
              or re.fullmatch(r'Documentation/[^/]+\.rst', t)
              or re.fullmatch(r'man/[^/]+\.[1-9]', t))
bad = 0
for d in docs:
    text = open(d, encoding='utf-8').read()
    if d.endswith('.md'):
        toks = tokens_md(text)
    elif d.endswith('.rst'):
        toks = tokens_rst(text)
    else:
        toks = tokens_man(text)
    seen = set()
    for span in toks:
        for tok in span.split():
            err = check_token(tok)
            if err and err not in seen:
                seen.add(err)
                print('%s: %s' % (d, err))
                bad += 1
print('# docs: %d files, %d paths named, %d dangling' %
      (len(docs), len(checked), bad))
sys.exit(1 if bad else 0)
PY

# (b) ------------------------------------------------------------------
kdoc=
for k in /lib/modules/*/build/scripts/kernel-doc \
	 /usr/src/linux-headers-*/scripts/kernel-doc \
	 /usr/lib/linux-kbuild-*/scripts/kernel-doc; do
	[ -x "$k" ] && { kdoc=$k; break; }
done
if [ -z "$kdoc" ]; then
	echo "kernel-doc: not found (linux-kbuild, from the kernel headers)" >&2
	exit 1
fi
mapfile -t srcs < <(git ls-files -- 'net/*.[ch]' 'include/net/rds/*.h' \
	'transports/*.[ch]')
out=$("$kdoc" -none -Werror "${srcs[@]}" 2>&1) || rc=1
if [ -n "$out" ]; then
	echo "$out"
	rc=1
fi
nwarn=$(echo -n "$out" | grep -c . || true)
echo "# kernel-doc: ${#srcs[@]} files, $nwarn line(s) of warnings ($kdoc)"

# (c) ------------------------------------------------------------------
py=python3
$py -c 'import docutils' 2>/dev/null || py=/usr/bin/python3
mapfile -t pages < <(git ls-files -- 'Documentation/*.rst')
if ! $py - "${pages[@]}" <<'PY'; then
import sys
from docutils.core import publish_doctree

bad = 0
for page in sys.argv[1:]:
    with open(page) as f:
        text = f.read()
    # Level 2 (warning) and up go to stderr with the file and line.
    doc = publish_doctree(text, source_path=page, settings_overrides={
        "report_level": 2, "halt_level": 5, "file_insertion_enabled": False})
    bad += sum(1 for m in doc.findall(lambda n: n.tagname == "system_message")
               if m["level"] >= 2)
print("# docutils: %d pages, %d warning(s)" % (len(sys.argv) - 1, bad))
sys.exit(1 if bad else 0)
PY
	rc=1
fi
exit $rc
