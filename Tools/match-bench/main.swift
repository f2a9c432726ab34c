print("match-bench: not written yet")
