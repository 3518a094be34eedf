"""Shared learner machinery (not learners): the base classes, input checks, losses, averaged and projected outputs,
probabilities."""
