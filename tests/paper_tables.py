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
        mantissa_text, exponent_text = printed.split("e")
        digits = len(mantissa_text.replace(".", "").lstrip("0"))
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        width = len(exponent_text.lstrip("+-"))  # "5.4e-5" or "5.64e-01", as the paper prints
        sign = "-" if int(exponent) < 0 else ("+" if exponent_text.startswith("+") else "")
        return f"{mantissa}e{sign}{abs(int(exponent)):0{width}d}"
    return f"{value:.{len(printed.split('.')[1])}f}"


# --- When LLMs get significantly worse -----------------------------------------------------
# Tables 6-9: per-task contingency counts. In that paper a counts items both models failed and
# d items both solved (its Table 1), so both_correct = d and both_wrong = a. Table 5 gives the
# task sizes, which complete the rerun row (printed without a).
DEGRADATION_TASK_SIZES = {
    "BBH": 5761,
    "GPQA": 1192,
    "IFEVAL": 541,
    "MATH": 5000,
    "MMLU": 12032,
    "MUSR": 756,
}
SIX = ("BBH", "GPQA", "IFEVAL", "MATH", "MMLU", "MUSR")
FIVE = ("BBH", "GPQA", "IFEVAL", "MMLU", "MUSR")  # the 70B runs leave MATH out


@dataclass(frozen=True)
class DegradationRow:
    label: str
    tasks: tuple[str, ...]
    a: tuple[int, ...] | None  # both failed
    b: tuple[int, ...]  # only the baseline solved
    c: tuple[int, ...]  # only the candidate solved
    d: tuple[int, ...]  # both solved
    # Table 2 as printed: delta and SE in percent, p-values, flip probability in percent
    delta: float
    se: float
    p_pool: str
    p_max_drop: str
    p_fisher: str
    flips: float

    def frame(self):
        import pandas as pd

        a = self.a or tuple(
            DEGRADATION_TASK_SIZES[t] - b - c - d
            for t, b, c, d in zip(self.tasks, self.b, self.c, self.d, strict=True)
        )
        return pd.DataFrame(
            {
                "task": self.tasks,
                "both_correct": self.d,
                "a_only": self.b,
                "b_only": self.c,
                "both_wrong": a,
            }
        )


TABLE_2 = [
    DegradationRow(
        "8B rerun",
        SIX,
        None,
        (0, 0, 1, 162, 0, 0),
        (0, 0, 2, 166, 0, 0),
        (2911, 341, 404, 2099, 4519, 291),
        -0.02,
        0.07,
        "6.29e-01",
        "8.04e-01",
        "8.68e-01",
        1.31,
    ),
    DegradationRow(
        "8B TP1",
        SIX,
        (2812, 847, 119, 2579, 7430, 462),
        (33, 3, 19, 178, 68, 1),
        (38, 4, 17, 160, 83, 3),
        (2878, 338, 386, 2083, 4451, 290),
        -0.01,
        0.10,
        "5.64e-01",
        "7.58e-01",
        "8.88e-01",
        2.40,
    ),
    DegradationRow(
        "8B A100",
        SIX,
        (2810, 838, 119, 2554, 7409, 461),
        (35, 13, 17, 183, 79, 0),
        (40, 13, 17, 185, 104, 4),
        (2876, 328, 388, 2078, 4440, 291),
        -0.14,
        0.10,
        "9.21e-01",
        "9.93e-01",
        "9.81e-01",
        2.73,
    ),
    DegradationRow(
        "8B w4a16",
        SIX,
        (2480, 809, 107, 2368, 6981, 431),
        (395, 49, 50, 573, 712, 37),
        (370, 42, 29, 371, 532, 34),
        (2516, 292, 355, 1688, 3807, 254),
        1.73,
        0.22,
        "4.80e-15",
        "0.00e+00",
        "2.84e-15",
        12.63,
    ),
    DegradationRow(
        "8B FP8",
        SIX,
        (2646, 812, 109, 2362, 7070, 449),
        (189, 25, 32, 424, 407, 18),
        (204, 39, 27, 377, 443, 16),
        (2722, 316, 373, 1837, 4112, 273),
        -0.04,
        0.19,
        "6.01e-01",
        "2.82e-01",
        "5.49e-01",
        8.71,
    ),
    DegradationRow(
        "8B w8a16",
        SIX,
        (2767, 847, 110, 2469, 7350, 462),
        (79, 17, 30, 303, 138, 10),
        (83, 4, 26, 270, 163, 3),
        (2832, 324, 375, 1958, 4381, 281),
        0.11,
        0.13,
        "2.11e-01",
        "1.36e-02",
        "1.33e-02",
        4.45,
    ),
    DegradationRow(
        "8B FP8-dynamic",
        SIX,
        (2670, 830, 106, 2385, 7157, 454),
        (207, 21, 23, 379, 322, 12),
        (180, 21, 30, 354, 356, 11),
        (2704, 320, 382, 1882, 4197, 279),
        0.05,
        0.17,
        "4.01e-01",
        "4.29e-01",
        "5.19e-01",
        7.58,
    ),
    DegradationRow(
        "8B w8a8",
        SIX,
        (2674, 827, 104, 2382, 7171, 455),
        (158, 27, 26, 400, 315, 20),
        (176, 24, 32, 357, 342, 10),
        (2753, 314, 379, 1861, 4204, 271),
        0.02,
        0.17,
        "4.63e-01",
        "2.04e-01",
        "2.74e-01",
        7.46,
    ),
    DegradationRow(
        "8B KV-FP8",
        SIX,
        (2616, 826, 113, 2392, 7120, 445),
        (250, 25, 23, 448, 479, 16),
        (234, 25, 23, 347, 393, 20),
        (2661, 316, 382, 1813, 4040, 275),
        0.79,
        0.19,
        "1.69e-05",
        "9.28e-04",
        "4.44e-04",
        9.03,
    ),
    DegradationRow(
        "70B w4a16",
        FIVE,
        (1342, 595, 53, 5002, 318),
        (2830, 281, 419, 5686, 167),
        (443, 223, 6, 604, 104),
        (1146, 93, 63, 740, 167),
        39.46,
        0.43,
        "0.00e+00",
        "0.00e+00",
        "0.00e+00",
        53.07,
    ),
    DegradationRow(
        "70B FP8-dynamic",
        FIVE,
        (1708, 813, 51, 5394, 418),
        (83, 14, 11, 230, 8),
        (77, 5, 8, 212, 4),
        (3893, 360, 471, 6196, 326),
        0.20,
        0.13,
        "6.33e-02",
        "1.13e-01",
        "6.06e-02",
        3.21,
    ),
    DegradationRow(
        "70B w8a8",
        FIVE,
        (1656, 810, 48, 5396, 418),
        (151, 13, 11, 300, 10),
        (129, 8, 11, 210, 4),
        (3825, 361, 471, 6126, 324),
        0.61,
        0.14,
        "1.34e-05",
        "4.00e-05",
        "1.83e-04",
        4.18,
    ),
    DegradationRow(
        "70B KV-FP8",
        FIVE,
        (1665, 812, 51, 5352, 415),
        (118, 14, 5, 310, 6),
        (120, 6, 8, 254, 7),
        (3858, 360, 477, 6116, 328),
        0.29,
        0.14,
        "2.51e-02",
        "4.62e-02",
        "7.57e-02",
        4.18,
    ),
    DegradationRow(
        "Mistral FP8-dynamic",
        SIX,
        (1793, 670, 163, 1912, 5164, 383),
        (100, 48, 35, 457, 219, 16),
        (109, 47, 32, 448, 196, 21),
        (3759, 427, 311, 2183, 6453, 336),
        0.09,
        0.16,
        "3.07e-01",
        "5.69e-01",
        "6.24e-01",
        6.83,
    ),
    DegradationRow(
        "Mistral w4a16",
        SIX,
        (1711, 668, 161, 1856, 4942, 365),
        (219, 68, 64, 577, 490, 36),
        (191, 49, 34, 504, 418, 39),
        (3640, 407, 282, 2063, 6182, 316),
        0.87,
        0.21,
        "1.30e-05",
        "8.04e-03",
        "2.84e-05",
        10.64,
    ),
    DegradationRow(
        "8B base 2:4 sparse",
        SIX,
        (2446, 657, 442, 3733, 7065, 341),
        (636, 195, 27, 632, 1428, 63),
        (641, 182, 56, 316, 1006, 124),
        (2038, 158, 16, 319, 2533, 228),
        2.59,
        0.29,
        "1.09e-19",
        "0.00e+00",
        "1.89e-35",
        20.99,
    ),
]
