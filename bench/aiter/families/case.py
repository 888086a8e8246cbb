"""One AITer check case: a code object, its kernel, and how to launch and check it."""


class Case:
    """build(rng) -> {grid, block, fields: {offset: Buffer|Value}, inputs: {name: array}, outputs: [names],
    decode: {name: fn(raw npy) -> values}, select: {name: index array}, dynamic_lds}
    reference(inputs) -> {output name: (expected values, rtol, atol)}
    schedule: `asmevo run --schedule` (None: the default, in order) and `why`, printed with the verdict: a kernel
    whose waves race on LDS (asmevo run --lds-races names the pair) runs as hardware times it, interleaved.
    add_waits: run the object rebuilt with the waits `asmevo check` finds missing (waits.py), not the shipped one.
    lds_races: run with `asmevo run --lds-races` (stops at the first LDS race between waves, naming both accesses)."""

    def __init__(self, name, co, kernel, what, build, reference, seed=0, schedule=None, why=None, add_waits=False,
                 lds_races=False):
        self.name, self.co, self.kernel, self.what = name, co, kernel, what
        self.build, self.reference, self.seed = build, reference, seed
        self.schedule, self.why, self.add_waits, self.lds_races = schedule, why, add_waits, lds_races
