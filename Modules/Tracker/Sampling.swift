import ViewIdentity

/// Deterministic sampling per app: a device is in or out by a hash of its id, so the same
/// device always gives all of its events or none, and raising the rate only adds devices.
///
/// The position of a device is the first 8 bytes of MD5(`appKey` + ":" + `device`) as a
/// fraction of 2^64; the device is in when that is below the rate.
public enum Sampling {
    public static func includes(device: String, appKey: String, rate: Double) -> Bool {
        guard rate < 1 else { return true }
        guard rate > 0 else { return false }
        return position(device: device, appKey: appKey) < rate
    }

    /// Where the device falls in [0, 1).
    public static func position(device: String, appKey: String) -> Double {
        var md5 = MD5()
        md5.update(utf8: appKey + ":" + device)
        let digest = md5.finalize()
        var n: UInt64 = 0
        for b in digest.prefix(8) { n = n << 8 | UInt64(b) }
        return Double(n >> 11) / Double(UInt64(1) << 53)
    }
}
