print("transport-bench: not written yet")
