"""The sampling pipeline and a chi-square test written independently with
numpy (no scipy), shared by the sampler's statistics test and the serve tests."""
import math

import numpy as np


def upper_regularized_gamma(a, x):
    """Q(a, x) = Gamma(a, x) / Gamma(a): series below a + 1, continued fraction above."""
    if x <= 0:
        return 1.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return 1.0 - total * math.exp(log_prefix)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_prefix) * h


def chi_square_p_value(observed, expected):
    """Pearson chi-square over bins with expected >= 5 (the rest pooled)."""
    big = expected >= 5
    obs = list(observed[big])
    exp = list(expected[big])
    if expected[~big].sum() > 0:
        obs.append(observed[~big].sum())
        exp.append(expected[~big].sum())
    obs, exp = np.array(obs, dtype=float), np.array(exp, dtype=float)
    statistic = float(((obs - exp) ** 2 / exp).sum())
    return upper_regularized_gamma((len(obs) - 1) / 2, statistic / 2)


def reference_probs(logits, temperature=1.0, top_k=-1, top_p=1.0, min_p=0.0,
                    prompt=(), output=(), presence=0.0, frequency=0.0, repetition=1.0):
    """The documented pipeline: penalties, temperature, top-k, top-p, min-p."""
    z = logits.astype(np.float64).copy()
    seen = set(prompt) | set(output)
    for t in seen:
        z[t] = z[t] / repetition if z[t] > 0 else z[t] * repetition
    counts = np.bincount(np.array(output, dtype=np.int64), minlength=len(z))
    z = z - frequency * counts - presence * (counts > 0)
    z = z / temperature
    keep = np.isfinite(z)
    if top_k >= 1 and top_k < keep.sum():
        keep &= z >= np.sort(z[keep])[::-1][top_k - 1]
    z_max = z[keep].max()
    weights = np.where(keep, np.exp(z - z_max), 0.0)
    if top_p < 1:
        order = sorted(np.flatnonzero(keep), key=lambda i: (-z[i], i))
        mass = top_p * weights[order].sum()
        above, nucleus = 0.0, np.zeros_like(keep)
        for i in order:
            if above >= mass:
                break
            nucleus[i] = True
            above += weights[i]
        keep &= nucleus
    if min_p > 0:
        keep &= np.exp(z - z_max) >= min_p
    weights = np.where(keep, weights, 0.0)
    return weights / weights.sum()


def log_softmax(logits):
    """log_softmax in float64 over the finite entries (-inf stays -inf)."""
    raw = np.asarray(logits, dtype=np.float64)
    finite = np.isfinite(raw)
    top = raw[finite].max()
    return raw - (top + np.log(np.exp(raw[finite] - top).sum()))
