"""One AITer check case: a code object, its kernel, and how to launch and check it."""


class Case:
    """build(rng) -> {grid, block, fields: {offset: Buffer|Value}, inputs: {name: array}, outputs: [names],
    decode: {name: fn(raw npy) -> values}, select: {name: index array}, dynamic_lds}
    reference(inputs) -> {output name: (expected values, rtol, atol)}"""

    def __init__(self, name, co, kernel, what, build, reference, seed=0):
        self.name, self.co, self.kernel, self.what = name, co, kernel, what
        self.build, self.reference, self.seed = build, reference, seed
