"""Published figures from the two papers, used as test oracles.

Rows hold what the paper prints; the 2x2 cells are rebuilt from the printed accuracies
(``both_correct = round(accuracy_a * N) - a_only``), which the printed precision pins down
uniquely (the rounding error of a 4-decimal accuracy is under half an item for N <= 12,032).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PairRow:
    label: str
    n_items: int
    accuracy_a: float
    accuracy_b: float
    a_only: int
    b_only: int
    correlation: float
    p_chi2: str  # as printed; "<1e-15" where the paper prints "< 10^-15"
    p_exact: str
    required_n: float

    @property
    def cells(self) -> tuple[int, int, int, int]:
        correct_a = round(self.accuracy_a * self.n_items)
        both_correct = correct_a - self.a_only
        both_wrong = self.n_items - both_correct - self.a_only - self.b_only
        return both_correct, self.a_only, self.b_only, both_wrong


# Resolution Diagnostics, Table 6: the seven OLL v1 close pairs.
TABLE_6 = [
    PairRow(
        "ARC-C gemma-7b / Llama-3-8B-Instruct",
        1172,
        0.6109,
        0.6075,
        98,
        94,
        0.66,
        "0.773",
        "0.829",
        110_379,
    ),
    PairRow(
        "ARC-C Llama-3-8B-Instruct / Llama-3-8B",
        1172,
        0.6075,
        0.5922,
        81,
        63,
        0.74,
        "0.134",
        "0.156",
        4_081,
    ),
    PairRow(
        "ARC-C gemma-7b / Llama-3-8B", 1172, 0.6109, 0.5922, 100, 78, 0.68, "0.099", "0.115", 3_375
    ),
    PairRow(
        "HS gemma-7b / Llama-3-8B", 10_042, 0.8247, 0.8202, 295, 249, 0.81, "0.049", "0.054", 20_255
    ),
    PairRow(
        "Wino Mistral-7B-I-v0.2 / Llama-3-8B",
        1267,
        0.7719,
        0.7711,
        121,
        120,
        0.46,
        "0.949",
        "1.000",
        2_396_624,
    ),
    PairRow(
        "Wino gemma-7b / Mistral-7B-I-v0.2",
        1267,
        0.7845,
        0.7719,
        119,
        103,
        0.49,
        "0.283",
        "0.314",
        8_616,
    ),
    PairRow(
        "Wino gemma-7b / Llama-3-8B", 1267, 0.7845, 0.7711, 98, 81, 0.59, "0.204", "0.232", 6_152
    ),
]

# Resolution Diagnostics, Table 7: the nine MMLU-Pro top-10 adjacent-rank pairs (N = 12,032).
TABLE_7 = [
    PairRow("1 vs 2", 12_032, 0.7303, 0.7185, 253, 111, 0.92, "9.9e-14", "7.1e-14", 1_697),
    PairRow("2 vs 3", 12_032, 0.7185, 0.7012, 284, 76, 0.93, "<1e-15", "<1e-15", 778),
    PairRow("3 vs 4", 12_032, 0.7012, 0.7002, 32, 20, 0.99, "0.096", "0.126", 34_092),
    PairRow("4 vs 5", 12_032, 0.7002, 0.6341, 1871, 1076, 0.46, "<1e-15", "<1e-15", 433),
    PairRow("5 vs 6", 12_032, 0.6341, 0.6153, 1680, 1454, 0.45, "5.4e-5", "5.8e-5", 5_787),
    PairRow("6 vs 7", 12_032, 0.6153, 0.6145, 1449, 1439, 0.49, "0.852", "0.867", 2_727_127),
    PairRow("7 vs 8", 12_032, 0.6145, 0.6054, 352, 242, 0.90, "6.4e-6", "7.3e-6", 4_628),
    PairRow("8 vs 9", 12_032, 0.6054, 0.5968, 787, 684, 0.75, "7.2e-3", "7.8e-3", 13_086),
    PairRow("9 vs 10", 12_032, 0.5968, 0.5945, 1227, 1200, 0.58, "0.584", "0.598", 314_370),
]


def as_printed(value: float, printed: str) -> str:
    """Format ``value`` with the precision of the paper's ``printed`` string.

    "0.099" has three decimals; "9.9e-14" two significant digits; "<1e-15" is a bound.
    """
    if printed.startswith("<"):
        return printed if value < float(printed[1:]) else f"{value:.3g}"
    if "e" in printed:
        digits = len(printed.split("e")[0].replace(".", "").lstrip("0"))
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{value:.{len(printed.split('.')[1])}f}"
