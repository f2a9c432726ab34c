print("pipeline-bench: not written yet")
