#!/bin/sh
# Dependency checker: the include graph between folders and the file graph
# inside some folders must follow the declared layering.
#
#   sh tests/check_deps.sh [ROOT]      check the tree at ROOT (default .)
#   sh tests/check_deps.sh --self-test check fake trees with known defects
#
# POSIX sh + grep/sed/awk only (the CI machine is a fresh Debian: dash and
# mawk). Exit status 0 when the tree passes, 1 when it does not, 2 on a
# usage error. What it checks:
#
#  1. Folders. An include "dir/file.h" in a file of folder D is an edge
#     D -> dir. Every folder of LAYERS may include only folders at its own
#     position or lower; runtime/ includes nothing but runtime/; FREE
#     folders may include anything (and are not checked). A cycle between
#     folders fails, and so does an include of a folder that is no layer.
#  2. Files, inside each folder of FILE_GRAPH_DIRS. A file D/a.c depends on
#     D/b.c when it includes D/b.h, or calls a function defined only in
#     D/b.c among D/*.c (a definition: a line at column 0 that ends in
#     "name(" after a return type, or a line "name(" right after a
#     return-type line; a call: "name(" elsewhere, outside comments and
#     string literals). A cycle fails, unless the folder is in
#     FILE_CYCLES_REPORT_ONLY (printed, not fatal).

# ---- The declared layering: the one place to edit. ------------------------

# Lowest first; a folder may include its own and lower folders only.
# runtime/ is lowest: it includes nothing of the generator, and the
# generator prints its tables (target/ names its roles, emit/ its rows).
LAYERS="runtime support frontend poly target schedule_tree promote variant emit api cli"
# Folders that may include anything; not checked.
FREE="tests bench examples scripts"
# Headers that count as another folder than the one they sit in, one
# "path=layer" per word (none today).
ALLOW=""
# Folders whose file graph must be acyclic.
FILE_GRAPH_DIRS="promote emit"
# Of those, the ones whose cycles are only reported (none: emit/ is
# acyclic since the kernel frame, emit/frame.c, review §7).
FILE_CYCLES_REPORT_ONLY=""

# ---------------------------------------------------------------------------

# One "from to" line per strongly connected component of more than one node
# on stdin ("from to" edge lines): prints "cycle: a -> b -> ... -> a" for
# one cycle through each, then "members: ..." when the component is larger.
find_cycles() {
	awk '
	function visit(v,    i, w, c, path) {
		idx[v] = low[v] = ++counter
		stack[++sp] = v
		onstack[v] = 1
		for (i = 1; i <= nout[v]; i++) {
			w = out[v, i]
			if (!(w in idx)) {
				visit(w)
				if (low[w] < low[v])
					low[v] = low[w]
			} else if (onstack[w] && idx[w] < low[v])
				low[v] = idx[w]
		}
		if (low[v] != idx[v])
			return
		c = 0
		do {
			w = stack[sp--]
			onstack[w] = 0
			comp[w] = v
			c++
		} while (w != v)
		if (c > 1)
			report(v, c)
	}
	# A shortest cycle through each member of the component of root (BFS),
	# each printed once, starting at its smallest name.
	function report(root, size,    m, u) {
		for (m in comp)
			if (comp[m] == root)
				shortest(m, root)
		if (size > 2) {
			u = ""
			for (m in comp)
				if (comp[m] == root)
					u = u " " m
			print "members:" u
		}
	}
	function shortest(start, root,    q, h, t, u, i, w, seen, prev, n, cyc, k, best, s) {
		h = 1; t = 0
		q[++t] = start
		seen[start] = 1
		while (h <= t) {
			u = q[h++]
			for (i = 1; i <= nout[u]; i++) {
				w = out[u, i]
				if (comp[w] != root)
					continue
				if (w == start) {
					n = 0
					while (u != start) {
						cyc[++n] = u
						u = prev[u]
					}
					cyc[++n] = start
					# cyc[n..1] is the path; rotate to the smallest
					best = n
					for (k = 1; k <= n; k++)
						if (cyc[k] < cyc[best])
							best = k
					s = cyc[best]
					for (k = best - 1; k != best; k--) {
						if (k < 1)
							k = n
						if (k == best)
							break
						s = s " -> " cyc[k]
					}
					s = s " -> " cyc[best]
					if (!(s in printed)) {
						printed[s] = 1
						print "cycle: " s
					}
					return
				}
				if (!(w in seen)) {
					seen[w] = 1
					prev[w] = u
					q[++t] = w
				}
			}
		}
	}
	NF == 2 && !(($1, $2) in edge) {
		edge[$1, $2] = 1
		out[$1, ++nout[$1]] = $2
		if (!($1 in node)) { node[$1] = 1; order[++n] = $1 }
		if (!($2 in node)) { node[$2] = 1; order[++n] = $2 }
	}
	END {
		for (i = 1; i <= n; i++)
			if (!(order[i] in idx))
				visit(order[i])
	}'
}

# The position of layer $1 in LAYERS (1-based), 0 when it is none.
layer_pos() {
	echo "$LAYERS" | awk -v l="$1" '{
		for (i = 1; i <= NF; i++)
			if ($i == l) { print i; exit }
		print 0
	}'
}

# Is word $1 in the list $2?
in_list() {
	case " $2 " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# "file include" lines for every #include "dir/file.h" of the checked
# folders' .c and .h files (one level deep, as the build compiles them).
folder_includes() {
	for d in $LAYERS; do
		[ -d "$d" ] || continue
		for f in "$d"/*.c "$d"/*.h; do
			[ -f "$f" ] || continue
			sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\/[^"]*\)".*/\1/p' \
				"$f" | sed "s|^|$f |"
		done
	done
}

# The folder (layer) a header counts as: ALLOW's entry or its directory.
header_layer() {
	for a in $ALLOW; do
		if [ "${a%%=*}" = "$1" ]; then
			echo "${a#*=}"
			return
		fi
	done
	echo "${1%%/*}"
}

# Check 1; prints the offending edges, returns 1 when there are any.
check_folders() {
	bad=0
	edges=$(mktemp) || exit 2
	folder_includes > "$edges.inc"
	while read -r f inc; do
		from=${f%%/*}
		to=$(header_layer "$inc")
		[ "$from" = "$to" ] && continue
		real=${inc%%/*}
		if [ "$real" != "$to" ] && [ "$real" != "$from" ] &&
		    [ "$(layer_pos "$real")" -gt "$(layer_pos "$from")" ]; then
			echo "allowed: $f -> $inc (ALLOW: counted as $to/)"
		fi
		echo "$from $to" >> "$edges"
		if in_list "$to" "$FREE"; then
			echo "layer: $f includes $inc: $to/ is not a layer"
			bad=1
			continue
		fi
		pf=$(layer_pos "$from")
		pt=$(layer_pos "$to")
		if [ "$pt" -eq 0 ]; then
			echo "layer: $f includes $inc: $to/ is not a declared layer"
			bad=1
		elif [ "$from" = runtime ]; then
			echo "layer: $f includes $inc: runtime/ includes nothing of the generator"
			bad=1
		elif [ "$pt" -gt "$pf" ]; then
			echo "layer: $f includes $inc: $from/ is below $to/"
			bad=1
		fi
	done < "$edges.inc"
	cyc=$(sort -u "$edges" | find_cycles)
	if [ -n "$cyc" ]; then
		echo "$cyc" | sed 's/^/folders: /'
		bad=1
	fi
	rm -f "$edges" "$edges.inc"
	return $bad
}

# The .c files of folder $1 with comments and string/char literals blanked
# out, as "file<TAB>line" records (line numbers are not kept).
stripped() {
	awk '
	FNR == 1 { incomment = 0 }
	{
		s = $0; o = ""
		while (s != "") {
			if (incomment) {
				i = index(s, "*/")
				if (!i) { s = ""; break }
				s = substr(s, i + 2); incomment = 0; continue
			}
			c = substr(s, 1, 1); c2 = substr(s, 1, 2)
			if (c2 == "/*") { incomment = 1; s = substr(s, 3); o = o " "; continue }
			if (c2 == "//") break
			if (c == "\"" || c == "\047") {
				j = 2
				while (j <= length(s) && substr(s, j, 1) != c)
					j += substr(s, j, 1) == "\\" ? 2 : 1
				s = substr(s, j + 1); o = o c c; continue
			}
			o = o c; s = substr(s, 2)
		}
		print FILENAME "\t" o
	}' "$1"/*.c
}

# Check 2 for folder $1; prints cycles, returns 1 when there are any.
check_files() {
	dir=$1
	ls "$dir"/*.c > /dev/null 2>&1 || return 0
	deps=$(mktemp) || exit 2
	stripped "$dir" | awk -F '\t' '
	# A definition candidate: "type name(" at column 0, or "name(" at
	# column 0 after a type line; confirmed by a "{" before any ";".
	function candidate(line, after_type,    pre) {
		if (line !~ /^[A-Za-z_]/ || line ~ /^(return|typedef|else|case|default)[^A-Za-z0-9_]/)
			return ""
		if (!match(line, /[A-Za-z_][A-Za-z0-9_]*\(/))
			return ""
		pre = substr(line, 1, RSTART - 1)
		if (pre ~ /[=(]/ || (pre == "" && !after_type))
			return ""
		return substr(line, RSTART, RLENGTH - 1)
	}
	function define(name, f) {
		if ((name, f) in def)
			return
		def[name, f] = 1
		ndef[name]++
		owner[name] = f
	}
	{
		f = $0; sub(/\t.*/, "", f)
		line = substr($0, length(f) + 2)
		text[f, ++nl[f]] = line
		if (!(f in seen)) { seen[f] = 1; files[++nf] = f; pend = "" }
		if (pend == "") {
			pend = candidate(line, aftertype)
			aftertype = line ~ /^[A-Za-z_]/ && line !~ /[;{}(),]/
		}
		if (pend != "") {
			if (line ~ /;/ && line !~ /\{/) {
				pend = ""
			} else if (line ~ /\{/) {
				define(pend, f)
				pend = ""
			}
		}
	}
	END {
		for (i = 1; i <= nf; i++) {
			f = files[i]
			# includes of a sibling header (read from the file: the
			# stripped text has the include names blanked)
			while ((getline l < f) > 0) {
				if (l !~ /^[ \t]*#[ \t]*include[ \t]*"/)
					continue
				h = l
				sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
				c = h; sub(/\.h$/, ".c", c)
				if (h ~ /\.h$/ && c != f && (c in seen))
					print f, c, "includes " h
			}
			close(f)
			for (j = 1; j <= nl[f]; j++) {
				s = text[f, j]
				while (match(s, /[A-Za-z_][A-Za-z0-9_]*\(/)) {
					name = substr(s, RSTART, RLENGTH - 1)
					before = RSTART > 1 ? substr(s, RSTART - 1, 1) : ""
					s = substr(s, RSTART + RLENGTH)
					if (before ~ /[A-Za-z0-9_]/ || ndef[name] != 1)
						continue
					g = owner[name]
					if (g == f || ((f, g, name) in said))
						continue
					said[f, g, name] = 1
					print f, g, "calls " name
				}
			}
		}
	}' > "$deps"
	cyc=$(cut -d ' ' -f 1,2 "$deps" | sort -u | find_cycles)
	if [ -z "$cyc" ]; then
		rm -f "$deps"
		return 0
	fi
	echo "$cyc" | sed "s|^|$dir/ files: |"
	# the edges of each printed cycle, with (up to 3) reasons
	echo "$cyc" | sed -n 's/^cycle: //p' | awk -F ' -> ' '{
		for (i = 1; i < NF; i++) print $i, $(i + 1)
	}' | sort -u | while read -r a b; do
		grep -F "$a $b " "$deps" | head -3 | sed "s|^|$dir/ edge: |"
	done
	rm -f "$deps"
	if in_list "$dir" "$FILE_CYCLES_REPORT_ONLY"; then
		echo "$dir/: file cycles reported only (FILE_CYCLES_REPORT_ONLY)"
		return 0
	fi
	return 1
}

check_tree() {
	status=0
	check_folders || status=1
	for d in $FILE_GRAPH_DIRS; do
		check_files "$d" || status=1
	done
	return $status
}

# ---- Self-test: fake trees with one defect each must fail. ----------------

# Writes a clean fake tree into $1.
fake_tree() {
	mkdir -p "$1/frontend" "$1/poly" "$1/promote" "$1/emit" "$1/tests"
	printf '#include "frontend/a.h"\n' > "$1/poly/p.c"
	printf 'int fa(int x);\n' > "$1/frontend/a.h"
	printf '#include "frontend/a.h"\nint fa(int x)\n{\n\treturn x;\n}\n' \
		> "$1/frontend/a.c"
	printf '#include "poly/p.h"\n#include "emit/e.h"\n' > "$1/tests/t.c"
	printf 'int pa(int x)\n{\n\treturn pb(x); /* pc(x) */\n}\n' \
		> "$1/promote/a.c"
	printf 'static int\npb(int x)\n{\n\treturn x + 1;\n}\n' \
		> "$1/promote/b.c"
	printf 'int pc(int x)\n{\n\treturn printf("pa(%%d)", x);\n}\n' \
		> "$1/promote/c.c"
	printf 'int ea(int x)\n{\n\treturn eb(x);\n}\n' > "$1/emit/a.c"
	printf 'int eb(int x)\n{\n\treturn x;\n}\n' > "$1/emit/b.c"
}

# expect WANT NAME [SCRIPT]: run the checker (or SCRIPT, a copy of it) in
# the fake tree $tmp; WANT 0 or 1.
expect() {
	(cd "$tmp" && sh "${3:-$self}" .) > "$tmp.out" 2>&1
	got=$?
	if [ "$got" -ne "$1" ]; then
		echo "self-test FAILED: $2: exit $got, expected $1"
		sed 's/^/  | /' "$tmp.out"
		fails=$((fails + 1))
	else
		echo "self-test ok: $2 (exit $got)"
	fi
}

self_test() {
	fails=0
	base=$(mktemp -d) || exit 2
	tmp=$base/t
	fake_tree "$tmp"
	expect 0 "a clean tree passes"
	printf '#include "poly/p.h"\n' >> "$tmp/frontend/a.c"
	expect 1 "frontend/ includes poly/ (against the layer order)"
	grep -q "folders: cycle: " "$tmp.out" || { \
		echo "self-test FAILED: folder cycle not printed"; \
		fails=$((fails + 1)); }
	rm -rf "$tmp"; fake_tree "$tmp"
	mkdir -p "$tmp/runtime"
	printf '#include "poly/p.h"\n' > "$tmp/runtime/r.c"
	expect 1 "runtime/ includes a generator folder"
	rm -rf "$tmp"; fake_tree "$tmp"
	mkdir -p "$tmp/misc"
	printf '#include "misc/m.h"\n' >> "$tmp/poly/p.c"
	expect 1 "an include of an undeclared folder"
	rm -rf "$tmp"; fake_tree "$tmp"
	printf 'int pd(void)\n{\n\treturn pa(1);\n}\n' >> "$tmp/promote/b.c"
	expect 1 "a call cycle promote/a.c <-> promote/b.c"
	grep -q 'cycle: promote/a.c -> promote/b.c -> promote/a.c' \
		"$tmp.out" || { echo "self-test FAILED: cycle not printed"; \
		fails=$((fails + 1)); }
	rm -rf "$tmp"; fake_tree "$tmp"
	printf '#include "promote/a.h"\n' >> "$tmp/promote/b.c"
	: > "$tmp/promote/a.h"
	expect 1 "an include cycle promote/a.c <-> promote/b.c"
	rm -rf "$tmp"; fake_tree "$tmp"
	printf 'int ec(void)\n{\n\treturn ea(1);\n}\n' >> "$tmp/emit/b.c"
	expect 1 "a call cycle emit/a.c <-> emit/b.c"
	grep -q 'emit/ files: cycle' "$tmp.out" || { \
		echo "self-test FAILED: emit/ cycle not printed"; \
		fails=$((fails + 1)); }
	sed 's/^FILE_CYCLES_REPORT_ONLY=.*/FILE_CYCLES_REPORT_ONLY="emit"/' \
		"$self" > "$base/report_only.sh"
	expect 0 "an emit/ cycle is reported only (FILE_CYCLES_REPORT_ONLY)" \
		"$base/report_only.sh"
	grep -q 'emit/: file cycles reported only' "$tmp.out" || { \
		echo "self-test FAILED: emit/ cycle not reported"; \
		fails=$((fails + 1)); }
	rm -rf "$base" "$tmp.out"
	[ "$fails" -eq 0 ] && echo "self-test: all passed"
	[ "$fails" -eq 0 ]
}

# ---------------------------------------------------------------------------

self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
case "${1-}" in
--self-test)
	self_test
	exit $?
	;;
-*)
	echo "usage: $0 [ROOT] | --self-test" >&2
	exit 2
	;;
esac
cd "${1:-.}" || exit 2
if check_tree; then
	echo "check_deps: ok"
	exit 0
fi
echo "check_deps: FAILED"
exit 1
