print("hooks-bench: not written yet")
