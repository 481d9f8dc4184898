"""The results pages' number formats: one place, so every page prints a rate the same way."""
import math

from studies.formatting import MISSING, mean_se, pct, pct_mean_se


def test_pct_rounds_to_the_asked_digits_and_marks_missing_values():
    assert pct(0.8374) == "83.7 %"
    assert pct(0.8374, 0) == "84 %"
    assert pct(0.5, se=0.0125) == "50.0 % ± 1.2"
    assert pct(None) == MISSING


def test_mean_se_is_the_standard_error_of_the_mean():
    # values 0.2, 0.4, 0.6: mean 0.4, sample s.d. 0.2, s.e. 0.2 / sqrt(3)
    mean, se, n = mean_se([0.2, 0.4, 0.6])
    assert n == 3 and math.isclose(mean, 0.4) and math.isclose(se, 0.2 / math.sqrt(3))
    assert mean_se([0.7])[1] is None
    assert math.isnan(mean_se([])[0])


def test_pct_mean_se_shows_a_zero_error_for_a_single_run():
    assert pct_mean_se([0.2, 0.4, 0.6]) == "40.0 % ± 11.5"
    assert pct_mean_se([0.9]) == "90.0 % ± 0.0"
