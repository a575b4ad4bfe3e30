"""Keeps the launch columns and the metrics of METRICS of an
`ncu --csv --page raw` table (which also lists every device attribute),
and drops the application's and ncu's own lines.
Usage: trim.py RAW.csv METRICS.txt > OUT.csv"""
import csv
import sys

raw, metrics = sys.argv[1], sys.argv[2]
keep_metrics = [m.strip() for m in open(metrics) if m.strip()]
rows = list(csv.reader(l for l in open(raw) if l.startswith('"')))
header = rows[0]
keep = ["ID", "Kernel Name", "Grid Size", "Block Size"] + [m for m in keep_metrics if m in header]
idx = [header.index(k) for k in keep]
w = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n")
for r in rows:
    w.writerow([r[i] for i in idx])
