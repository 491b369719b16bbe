import sys, glob
d = sys.argv[1]
steps = [tuple(map(float, l.split())) for l in open(f'{d}/steps.txt')]
srv = {}
for l in open(f'{d}/server.txt'):
    p = l.split()
    if len(p) == 5 and p[0] not in ('gap','gc'): srv[p[0]] = (float(p[1]), float(p[2]), float(p[3]), p[4])
cl = []
for f in glob.glob(f'{d}/client-*.txt'):
    for l in open(f):
        p = l.split()
        if len(p) >= 8 and p[0] not in ('gap','gc'): cl.append((p[0], p[1], [float(x) for x in p[2:7]]))
def pct(xs, q):
    xs = sorted(xs); return xs[min(len(xs)-1, int(q*len(xs)))] if xs else float('nan')
for users, a, b in steps:
    print(f'=== {int(users)} users')
    for op in ['fetch','presence','read','send','react']:
        ex = []; parts = []
        for id_, o, t in cl:
            if o != op or not (a <= t[0] and t[4] <= b) or id_ not in srv: continue
            s0, sr, sw, how = srv[id_]
            tot = t[4]-t[0]; route = sr-s0
            ex.append(tot-route); parts.append((tot-route, t[1]-t[0], s0-t[1], sw-sr, t[2]-sw, t[4]-t[2], tot, route))
        parts.sort()
        tail = parts[int(.99*len(parts)):]
        m = lambda i: sum(p[i] for p in tail)/len(tail)
        print(f'  {op:8} n={len(ex)} total p99 {pct([p[6] for p in parts],.99):7.1f} route p99 {pct([p[7] for p in parts],.99):7.1f} excess p50 {pct(ex,.5):6.1f} p90 {pct(ex,.9):6.1f} p99 {pct(ex,.99):6.1f}; top1% excess mean: conn {m(1):5.1f} to-srv {m(2):5.1f} defer {m(3):5.1f} back {m(4):5.1f} parse {m(5):5.1f}')
