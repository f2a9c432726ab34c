/// The studio's static files, embedded in the binary at build time from Modules/Studio/Resources
/// (`resources: [.embedInCode(…)]` in Package.swift; nothing is loaded from elsewhere or from disk).
/// The pages hold no inline script or style, so the Content-Security-Policy can be `'self'` only.
enum StudioAssets {
    /// The studio itself (`GET /`): apps, pictures, definitions; studio.js does the rest.
    static let studioHTML = text(PackageResources.studio_html)

    /// The login form (`GET /login`); `<!--MESSAGE-->` is where a failed login's sentence goes.
    static let loginHTML = text(PackageResources.login_html)

    /// `/studio.css`: the style sheet of both pages.
    static let css = text(PackageResources.studio_css)

    /// `/studio.js`: the studio page's script, its files joined in this order (plain JavaScript, no
    /// framework; classic scripts share one global scope, so each file may use what an earlier one declares).
    static let javaScript = [
        PackageResources.studio_api_js, PackageResources.studio_pages_js, PackageResources.studio_picture_js,
        PackageResources.studio_definitions_js, PackageResources.studio_insights_js, PackageResources.studio_main_js,
    ].map(text).joined(separator: "\n")

    /// `/favicon.svg`: a circled dot, the studio's mark.
    static let faviconSVG = text(PackageResources.favicon_svg)

    /// The files are UTF-8 (checked when they are served: a bad byte would show as U+FFFD in the browser).
    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
