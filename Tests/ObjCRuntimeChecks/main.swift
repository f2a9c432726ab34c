print("objc-runtime-checks")
