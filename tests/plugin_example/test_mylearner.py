"""The example plugin's one test: olk's learner contract on its class."""
from mylearner import MarginRandomBudget

from olk.testing import check_learner


def test_margin_random_budget_meets_the_learner_contract():
    check_learner(MarginRandomBudget)
