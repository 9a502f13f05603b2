# consts.awk: a module with @main's parameters made constants, so that
# ir-run --interp runs it without inputs.  Values are small multiples of
# 0.25 (exact in every float type), integers -5..5, from the element's
# position, so two runs see the same numbers.
/^fn @main\(/ {
	lp = index($0, "(")
	rp = index($0, ") ")
	if (!rp) rp = index($0, "){")
	params = substr($0, lp + 1, rp - lp - 1)
	rest = substr($0, rp + 1)
	print "fn @main()" rest
	n = split(params, ps, ", %")
	for (i = 1; i <= n; i++) {
		p = ps[i]
		if (i == 1) p = substr(p, 2)
		name = substr(p, 1, index(p, ":") - 1)
		decl = substr(p, index(p, ":") + 2)
		ty = decl
		sub(/ .*/, "", ty)
		elem = ty
		sub(/\[.*/, "", elem)
		dims = ty
		sub(/^[^[]*\[/, "", dims)
		sub(/\].*/, "", dims)
		count = 1
		nd = split(dims, ds, ",")
		for (d = 1; d <= nd; d++) count *= ds[d]
		# element by element: building the list as one string by
		# concatenation is quadratic under mawk (minutes on a large module)
		printf "%s", "  %" name ": " decl " = const " ty " ["
		fl = elem ~ /^f/
		for (k = 0; k < count; k++) {
			v = (k * 7) % 11 - 5
			printf "%s%s", (k ? ", " : ""), (fl ? v * 0.25 : v)
		}
		print "]"
	}
	next
}
{ print }
