#!/usr/bin/env python3
"""Recomputes the arena's overall board (raw, not controlled for style) from its public votes.

    curl -s http://localhost:3000/api/votes > votes.ndjson
    python3 refit.py votes.ndjson [--min-votes 10]

numpy alone; the method is docs/guides/ratings.md's, written out for a board small enough for
dense matrices (a few thousand agents). Prints one JSON line per agent in the API's order.
"""
import argparse
import json
import math

import numpy as np

ELO_PER_NAT = 400 / math.log(10)  # 173.7 Elo points per unit of natural-log strength
PRIOR_PRECISION = (ELO_PER_NAT / 250) ** 2  # the prior: N(0, 250 Elo) on every strength
Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
SCORE = {"a": 1.0, "b": 0.0, "tie": 0.5, "both_bad": 0.5}


def read_votes(path):
    with open(path, encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    # A battle of an agent against itself tells nothing: the fit leaves it out.
    return [r for r in records if r["agent_a_id"] != r["agent_b_id"]]


def fit(votes):
    ids = sorted({r["agent_a_id"] for r in votes} | {r["agent_b_id"] for r in votes})
    index = {agent: i for i, agent in enumerate(ids)}
    a = np.array([index[r["agent_a_id"]] for r in votes])
    b = np.array([index[r["agent_b_id"]] for r in votes])
    s = np.array([SCORE[r["winner"]] for r in votes])  # what side a scored
    n = len(ids)
    d = np.zeros((len(votes), n))  # each vote's design row: +1 for side a, -1 for side b
    d[np.arange(len(votes)), a] = 1
    d[np.arange(len(votes)), b] = -1

    # Newton's method on the penalised log-likelihood: sum of log-likelihoods - prior/2 * |theta|^2.
    theta = np.zeros(n)
    for _ in range(100):
        p = 1 / (1 + np.exp(-(d @ theta)))
        gradient = d.T @ (s - p) - PRIOR_PRECISION * theta
        hessian = d.T @ (d * (p * (1 - p))[:, None]) + PRIOR_PRECISION * np.eye(n)
        step = np.linalg.solve(hessian, gradient)
        theta += step
        if np.max(np.abs(step)) < 1e-12:
            break
    p = 1 / (1 + np.exp(-(d @ theta)))
    hessian = d.T @ (d * (p * (1 - p))[:, None]) + PRIOR_PRECISION * np.eye(n)
    rating = 1500 + (theta - theta.mean()) * ELO_PER_NAT

    # Robust (sandwich) variance of each rating, H^-1 M H^-1 along c = e_i - 1/n, and the model's, c' H^-1 c.
    contrast = np.eye(n) - 1 / n
    u = np.linalg.solve(hessian, contrast)  # column i is H^-1 c_i
    sandwich = (((d @ u) * (s - p)[:, None]) ** 2).sum(axis=0)
    model = (contrast * u).sum(axis=0)

    # Placed: the largest strongly connected part of "scored against" (won or drew), when unique and not alone.
    scored = np.eye(n, dtype=bool)
    scored[a[s > 0], b[s > 0]] = True
    scored[b[s < 1], a[s < 1]] = True
    reach = scored
    for _ in range(max(1, math.ceil(math.log2(n)))):
        reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
    part = reach & reach.T  # same part: each reaches the other
    sizes = part.sum(axis=1)
    largest = sizes.max()
    parts_of_largest = {tuple(np.flatnonzero(part[i])) for i in range(n) if sizes[i] == largest}
    placed = part[np.argmax(sizes)] if largest >= 2 and len(parts_of_largest) == 1 else np.zeros(n, dtype=bool)

    variance = np.where(placed, np.maximum(sandwich, model), model)
    half = Z95 * np.sqrt(variance) * ELO_PER_NAT
    pull = PRIOR_PRECISION * (rating - 1500) * model  # the prior's pull toward the mean, in Elo
    low = rating - half - np.maximum(0, -pull)
    high = rating + half + np.maximum(0, pull)

    counts = {agent: {"votes": 0, "wins": 0, "losses": 0, "ties": 0} for agent in ids}
    for r in votes:
        for side, other in (("a", "b"), ("b", "a")):
            c = counts[r[f"agent_{side}_id"]]
            c["votes"] += 1
            c["wins"] += int(r["winner"] == side)
            c["losses"] += int(r["winner"] == other)
            c["ties"] += int(r["winner"] in ("tie", "both_bad"))
    return [
        {
            "agent_id": agent,
            "bt_rating": float(rating[i]),
            "ci_low": float(low[i]),
            "ci_high": float(high[i]),
            "separated": not bool(placed[i]),
            **counts[agent],
        }
        for i, agent in enumerate(ids)
    ]


def standings(rows, min_votes):
    ranked = [r for r in rows if r["votes"] >= min_votes]
    for r in ranked:
        r["rank"] = 1 + sum(int(other["ci_low"] > r["ci_high"]) for other in ranked)
    for r in rows:
        r.setdefault("rank", None)
    by_rating = lambda r: (-r["bt_rating"], r["agent_id"])
    return sorted(ranked, key=lambda r: (r["rank"], *by_rating(r))) + sorted(
        (r for r in rows if r["votes"] < min_votes), key=by_rating
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("votes", help="the export of GET /api/votes, JSON lines")
    parser.add_argument("--min-votes", type=int, default=10, help="votes an agent needs for a rank")
    args = parser.parse_args()
    for row in standings(fit(read_votes(args.votes)), args.min_votes):
        print(json.dumps(row))
