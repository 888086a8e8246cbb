"""A code object rebuilt with the s_waitcnt that `asmevo check` finds missing: `s_waitcnt vmcnt(0) lgkmcnt(0)`
before every instruction it reports as `waitcnt.raw` (a read of a load's destination that no wait covers), until
none is left. The most conservative wait, not a tuned one: it shows what a kernel computes once its loads have
landed, i.e. whether its arithmetic is right apart from the missing waits. Works in a scratch folder; the input
is never modified and nothing of it is kept.
"""
import re
import subprocess

WAITCNT_RAW = re.compile(r"waitcnt\.raw \[waitcnt\] \S+ 0x([0-9a-f]+):")
ADDRESS = re.compile(r"// ([0-9A-F]{12,16}):")


def add_missing_waits(asmevo, co_in, work, max_rounds=4):
    """-> (path of the rebuilt object, number of waits inserted)."""
    asm = work / "waits_0.s"
    subprocess.run([asmevo, "disasm", co_in, "-o", str(asm)], check=True, capture_output=True)
    inserted = 0
    for round_ in range(max_rounds):
        co = work / f"waits_{round_}.co"
        subprocess.run([asmevo, "rebuild", str(asm), "-o", str(co)], check=True, capture_output=True)
        report = subprocess.run([asmevo, "check", str(co)], capture_output=True, text=True).stdout
        flagged = {int(a, 16) for a in WAITCNT_RAW.findall(report)}
        if not flagged:
            return str(co), inserted
        text = subprocess.run([asmevo, "disasm", str(co)], check=True, capture_output=True, text=True).stdout
        lines = []
        for line in text.splitlines():
            m = ADDRESS.search(line)
            if m and int(m.group(1), 16) in flagged:
                lines.append("\ts_waitcnt vmcnt(0) lgkmcnt(0)")
                inserted += 1
            lines.append(line)
        asm = work / f"waits_{round_ + 1}.s"
        asm.write_text("\n".join(lines) + "\n")
    raise SystemExit(f"error: {co_in}: `asmevo check` still reports waitcnt.raw after {max_rounds} rounds of inserted waits")
