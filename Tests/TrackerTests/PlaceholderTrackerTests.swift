import Testing

// Placeholder: replaced by the module's real tests. A test here must not remain.
@Test func placeholderTracker() { #expect(Bool(true)) }
