# Experiment: variants of the FIXUP line of a generated file (argv[1]) into
# argv[2]_{put,sum,ret,noret}.cu
import re, sys
s = open(sys.argv[1]).read()
line = re.search(r'if \(pm_nz > 1\) \{.*\}\n', s).group(0)
put = re.search(r' pm_splitk_put<[^;]*;', line).group(0)
arr = re.search(r' if \(!pm_splitk_arrive[^;]*;', line).group(0)
sm = re.search(r' pm_splitk_sum<[^;]*;', line).group(0)
v = {
    'put': 'if (pm_nz > 1) {' + put + arr + ' }\n',
    'sum': 'if (pm_nz > 1) {' + arr + sm + ' }\n',
    'ret': 'if (pm_nz > 1) {' + arr + ' }\n',
    'noret': line.replace(' return;', ' ;'),
}
for k, l in v.items():
    open(sys.argv[2] + '_' + k + '.cu', 'w').write(s.replace(line, l))
