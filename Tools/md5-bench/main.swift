print("md5-bench: not written yet")
