print("viewpath-bench: not written yet")
