#!/usr/bin/env python3
"""Fits the per-class weights of ctx's calibrated token estimate (src/budget/estimate.rs).

Input: the CSV that `cargo run --release --example budget_calibrate -- DIR...` prints (one row
per text file: its content class, exact o200k_base count, ctx's current estimate and
character-class counts). Files whose path hashes to an even number train the fit; the others
measure its error, and the error of the weights ctx ships (column `shipped`), which were fitted
the same way: on held-out files both errors are out of sample.

    python3 scripts/budget-calibrate.py features.csv

Needs numpy. Prints the weights as Rust arrays and the held-out errors.
"""
import csv
import sys
import zlib

import numpy as np

FEATURES = ["letters", "digits", "spaces", "newlines", "tabs_cr", "punct", "utf8_2", "utf8_3", "utf8_4"]
# Where the fit is pulled when a class has too little of a feature to say (tokens per unit):
# a few letters a token, digits in groups of up to three, non-ASCII characters about one token
# each, emoji and other 4-byte characters more.
PRIOR = np.array([0.2, 0.6, 0.05, 0.5, 0.3, 0.5, 0.8, 1.0, 1.5])
# Weight of the prior, in the units of the weighted squared error.
RIDGE = 2000.0


def main(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if int(r["o200k"]) < 20:
                continue
            rows.setdefault(r["class"], []).append(r)
    totals = [0.0, 0.0]
    shipped_totals = [0.0, 0.0]
    for cls in ["prose", "code", "data", "lockfile", "encoded", "hex"]:
        data = rows.get(cls, [])
        if not data:
            print(f"{cls}: no files")
            continue
        x = np.array([[float(r[k]) for k in FEATURES] for r in data])
        y = np.array([float(r["o200k"]) for r in data])
        held_out = np.array([zlib.crc32(r["path"].encode()) % 2 == 1 for r in data])
        train = ~held_out if held_out.sum() and (~held_out).sum() else np.ones(len(data), bool)
        test = held_out if held_out.sum() and (~held_out).sum() else np.ones(len(data), bool)
        # Minimise squared error relative to sqrt(tokens): big files matter more, but small ones
        # still count.
        w = 1.0 / np.sqrt(y[train])
        a = np.vstack([x[train] * w[:, None], np.sqrt(RIDGE) * np.eye(len(FEATURES))])
        b = np.concatenate([y[train] * w, np.sqrt(RIDGE) * PRIOR])
        coef, *_ = np.linalg.lstsq(a, b, rcond=None)
        # No character makes the count go down.
        coef = np.maximum(coef, 0.0)
        pred = x[test] @ coef
        rel = (pred - y[test]) / y[test]
        total = (pred.sum() - y[test].sum()) / y[test].sum()
        print(f"{cls}: {len(data)} files ({train.sum()} fit, {test.sum()} held out), "
              f"{int(y.sum())} o200k tokens, {int(x.sum())} bytes")
        print(f"  held-out per-file error: median {np.median(np.abs(rel)) * 100:.1f} %, "
              f"p90 {np.percentile(np.abs(rel), 90) * 100:.1f} %, "
              f"total {total * 100:+.2f} %")
        shipped = np.array([float(r["shipped"]) for r in data])[test]
        srel = (shipped - y[test]) / y[test]
        print(f"  shipped weights, same files: median {np.median(np.abs(srel)) * 100:.1f} %, "
              f"p90 {np.percentile(np.abs(srel), 90) * 100:.1f} %, "
              f"total {(shipped.sum() - y[test].sum()) / y[test].sum() * 100:+.2f} %")
        totals[0] += pred.sum()
        totals[1] += y[test].sum()
        shipped_totals[0] += shipped.sum()
        shipped_totals[1] += y[test].sum()
        print("  ContentClass::%s => [%s]," % (cls.capitalize(), ", ".join(f"{c:.4f}" for c in coef)))
    print(f"all held-out files: total {(totals[0] - totals[1]) / totals[1] * 100:+.2f} %, "
          f"shipped weights {(shipped_totals[0] - shipped_totals[1]) / shipped_totals[1] * 100:+.2f} %")


if __name__ == "__main__":
    main(sys.argv[1])
