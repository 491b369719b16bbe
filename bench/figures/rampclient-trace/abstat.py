import sys, glob, json
def load(d):
    steps = [tuple(map(float, l.split())) for l in open(f'{d}/trace/steps.txt')]
    srv = {}; gaps = []
    for l in open(f'{d}/trace/server.txt'):
        p = l.split()
        if p[0] == 'gap': gaps.append((float(p[1]), float(p[2]), float(p[3]) if len(p) > 3 else -1)); continue
        if len(p) == 5 and p[0] not in ('gc', 'pub'): srv[p[0]] = (float(p[1]), float(p[2]), float(p[3]), p[4])
    cl = []
    for f in glob.glob(f'{d}/trace/client-*.txt'):
        for l in open(f):
            p = l.split()
            if len(p) >= 8 and p[0] not in ('gap', 'gc'): cl.append((p[0], p[1], [float(x) for x in p[2:7]]))
    return steps, srv, cl, gaps
def pct(xs, q):
    xs = sorted(xs); return xs[min(len(xs)-1, int(q*len(xs)))] if xs else float('nan')
for d in sys.argv[1:]:
    steps, srv, cl, gaps = load(d)
    for users, a, b in steps:
        g = [x for x in gaps if a <= x[0] <= b]
        out = f'{d.split("/")[-1]:4} {int(users)}: srv gaps {sum(x[1] for x in g)/1000:.1f}s cpu-in-gaps {sum(x[2] for x in g)/1000:.1f}s |'
        allw = []; dall = []
        for op in ['fetch','presence','read','send','react']:
            tot = []; ex = []; de = []
            for id_, o, t in cl:
                if o != op or not (a <= t[0] and t[4] <= b) or id_ not in srv: continue
                s0, sr, sw, how = srv[id_]
                tot.append(t[4]-t[0]); ex.append(t[4]-t[0]-(sr-s0)); de.append(sw-sr)
            dall += de
            out += f' {op} {pct(tot,.99):.0f}/{pct(ex,.99):.0f}'
        out += f' | defer p99 {pct(dall,.99):.1f} mean {sum(dall)/len(dall):.2f} >1ms {100*sum(1 for x in dall if x>1)/len(dall):.1f}%'
        print(out)
