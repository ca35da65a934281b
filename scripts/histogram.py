"""The p-quantile of an OpenMetrics histogram over a window, from two `/metrics` scrapes:
the bucket the quantile falls in (its upper bound, `le`), and the window's count. Shared by
scripts/capacity.sh and scripts/cluster-load.sh (imported from the checkout's root)."""
import re


def buckets(path, name):
    b = {}
    for line in open(path):
        m = re.match(name + r'_bucket\{le="([^"]+)"\} (\S+)', line)
        if m:
            b[float(m.group(1))] = float(m.group(2))
    return b


def quantile(before, after, name, p):
    b0, b1 = buckets(before, name), buckets(after, name)
    d = {k: b1[k] - b0.get(k, 0) for k in b1}
    ks = sorted(d)
    tot = d[ks[-1]]
    for k in ks:
        if d[k] >= p * tot:
            return k, tot
    return ks[-1], tot
