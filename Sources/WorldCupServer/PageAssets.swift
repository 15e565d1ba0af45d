/// The page's script and style sheet, served at `/app.js` and `/app.css` from the binary itself
/// (no CDN, nothing fetched at run time): `Page/app.js` and `Page/app.css`, files that
/// JavaScript and CSS tools read, embedded at build time.
enum PageAssets {
    static let script = String(decoding: PackageResources.app_js, as: UTF8.self)
    static let style = String(decoding: PackageResources.app_css, as: UTF8.self)
}
