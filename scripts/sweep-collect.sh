# sweep-collect.sh: sourced by gpu-check.sh, gpu-fused-check.sh and
# gpu-spec-check.sh.

# The forced-variant strings of generated file $1: each row's suffix in its
# pm_variants_* table (_base for the unsuffixed kernel), and <suffix>,s=2
# and <suffix>,s=3 for the split rows; nothing for a file of one kernel.
file_variants() {
	awk '/^static const struct pm_rt_variant pm_variants_/ { t = 1; next }
	t && /^};/ { t = 0 }
	t && match($0, /\{ "[^"]*", PM_RT_[A-Z_]+/) {
		split(substr($0, RSTART, RLENGTH), f, "\"")
		suf = f[2] == "" ? "_base" : f[2]
		role = f[3]
		sub(/^, /, "", role)
		print suf
		if (role == "PM_RT_SPLIT" || role == "PM_RT_PERSIST_SPLIT" ||
		    role == "PM_RT_PERSIST_SPLIT_CL" ||
		    role == "PM_RT_PERSIST_SKINNY" || role == "PM_RT_PERSIST_SWAP")
			print suf ",s=2\n" suf ",s=3"
	}' "$1"
}

# sweep_collect: the forced-variant sweep's results. Reads the runs
# "NAME VARIANT" of $W/sweep/runs.txt and each run's log
# $W/sweep/NAME@VARIANT.log; appends the logs to $LOG and their
# PASS/FAIL/SKIP lines to $RES; a run that crashed or timed out, or whose
# forced variant ran no size ("never legal"), is a FAIL; prints one summary
# line per file (binary).
sweep_collect() {
	local prev= nv=0 nrun=0 never=() sp=0 sf=0 ss=0 name v log ran
	sweep_summary() {	# the summary line of file (binary) $prev
		[ -n "$prev" ] || return 0
		printf '%-26s sweep: %2d variants, %2d ran, %d never legal%s; %d passed, %d failed, %d skipped\n' \
			"$prev" "$nv" "$nrun" "${#never[@]}" \
			"$([ ${#never[@]} = 0 ] || echo " (${never[*]})")" "$sp" "$sf" "$ss"
	}
	while read -r name v; do
		if [ "$name" != "$prev" ]; then
			sweep_summary
			prev=$name nv=0 nrun=0 never=() sp=0 sf=0 ss=0
		fi
		log=$W/sweep/$name@$v.log
		cat "$log" >>"$LOG"
		grep -E '^(PASS|FAIL|SKIP) ' "$log" >>"$RES"
		nv=$((nv + 1))
		sp=$((sp + $(grep -c '^PASS ' "$log")))
		sf=$((sf + $(grep -c '^FAIL ' "$log")))
		ss=$((ss + $(grep -c '^SKIP ' "$log")))
		if ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log"; then
			echo "FAIL $name@$v - crashed or timed out ($(tail -n 1 "$log")): $(tail -n 2 "$log" | head -n 1)" |
				tee -a "$LOG" >>"$RES"
			sf=$((sf + 1))
		fi
		ran=$(sed -n 's/^VARIANT .* ran=\([0-9]*\) .*/\1/p' "$log")
		if [ "${ran:-0}" = 0 ]; then
			never+=("$v")
			echo "FAIL $name@$v - never legal: the forced variant ran no size of the sweep" |
				tee -a "$LOG" >>"$RES"
			sf=$((sf + 1))
		else
			nrun=$((nrun + 1))
		fi
	done <"$W/sweep/runs.txt"
	sweep_summary
}
