// Filled in by the change that adds its subject.
