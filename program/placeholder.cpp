// Replaced by the instruction model.
