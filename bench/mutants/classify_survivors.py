#!/usr/bin/env python3
"""Classify a mutant bench run's reached survivors against the verdicts recorded in bench/mutants/results.

usage: classify_survivors.py JSON_DIR [RESULTS_DIR] [--out FILE]
  JSON_DIR     mutants_bench --json files (one or many; e.g. one per kernel of a sharded run)
  RESULTS_DIR  the gfx942-issue16-*.txt verdict files (default: bench/mutants/results beside this script)
Prints the kill rate over reached mutants and over reached mutants not shown equivalent. A survivor counts as
shown equivalent when the run itself proves it (`known_equivalent`: a static argument or a PROVEN window proof) or a
results file gives it ARGUMENT, ADMITTED, EXHAUSTIVE or PROVEN; the newest file's verdict wins. Nothing rests on a
run passing: OPEN and unlisted survivors stay in the denominator.
"""
import collections, glob, json, os, re, sys

# A session's file is named sN[-what].txt and ranks by N; the two files without a session number rank
# below all of them, as they always have (the vary survivors, then the equivalence arguments). Within a
# session, a full run's classification (sN-full.txt, this script's --out) ranks below the session's other
# files: its verdicts are copies of older ones, the others' are new.
UNNUMBERED = {'vary-survivors.txt': (0, 0), 'equivalence-evidence.txt': (1, 0)}


def newness(name):
    if name in UNNUMBERED:
        return UNNUMBERED[name]
    m = re.match(r's(\d+)(-full)?', name)
    if not m:
        sys.exit(f'{name}: a results file must be named sN[-what].txt (N its session) to rank its verdicts')
    return (int(m.group(1)), 0 if m.group(2) else 1)
SHOWN = {'ARGUMENT', 'ADMITTED', 'EXHAUSTIVE', 'PROVEN'}


def recorded_verdicts(results_dir):
    known = {}
    for path in glob.glob(os.path.join(results_dir, 'gfx942-issue16-*.txt')):
        name = path.split('gfx942-issue16-')[1]
        for line in open(path):
            if line.startswith('#'):
                continue
            fields = [x.strip() for x in line.split('|')]
            if len(fields) < 4 or not fields[2].startswith('0x'):
                fields = line.split()  # the space-separated files (their evidence may contain '|')
            if len(fields) >= 4 and fields[2].startswith('0x'):
                known.setdefault(tuple(fields[:3]), []).append((newness(name), name, fields[3]))
    return known


def main(argv):
    out = None
    if '--out' in argv:
        i = argv.index('--out'); out = argv[i + 1]; del argv[i:i + 2]
    if not argv:
        sys.exit(__doc__)
    json_dir = argv[0]
    results_dir = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results')
    known = recorded_verdicts(results_dir)
    totals = collections.Counter(); survivors = []
    for path in sorted(glob.glob(os.path.join(json_dir, '*.json'))):
        run = json.load(open(path))
        for r in run['operators'].values():
            for k in ('mutants', 'killed', 'survived_unexecuted'):
                totals[k] += r[k]
        survivors += run['survivors']
    rows, classes = [], collections.Counter()
    for s in survivors:
        if not s.get('edit_executed', True):
            continue
        key = (s['kernel'], s['op'], s['address'])
        verdict = 'PROVEN-IN-RUN' if s.get('known_equivalent') else (max(known[key])[2] if key in known else 'UNLISTED')
        proof = s.get('proof', {}).get('verdict', '-')
        classes[verdict] += 1
        rows.append(f"{s['kernel']:28s} {s['op']:20s} {s['address']:8s} {verdict:14s} window-proof={proof:10s} {s.get('survivor_class', '')}")
    reached = totals['mutants'] - totals['survived_unexecuted']
    shown = sum(n for v, n in classes.items() if v in SHOWN or v == 'PROVEN-IN-RUN')
    print(f"mutants {totals['mutants']}, reached {reached}, killed {totals['killed']} ({100 * totals['killed'] / reached:.2f} % of reached)")
    print(f"reached survivors {sum(classes.values())}: " + ', '.join(f'{v} {n}' for v, n in sorted(classes.items())))
    print(f"killed over reached not shown equivalent: {totals['killed']} / {reached - shown} = {100 * totals['killed'] / (reached - shown):.2f} %")
    if classes['KILLED']:  # survivors of this run that a later gate, recorded in a results file, kills
        killed = totals['killed'] + classes['KILLED']
        print(f"with the {classes['KILLED']} survivors a results file records as KILLED by a later gate: "
              f"{killed} / {reached - shown} = {100 * killed / (reached - shown):.2f} %")
    if out:
        with open(out + '.tmp', 'w') as f:
            f.write('\n'.join(sorted(rows)) + '\n')
        os.replace(out + '.tmp', out)


if __name__ == '__main__':
    main(sys.argv[1:])
