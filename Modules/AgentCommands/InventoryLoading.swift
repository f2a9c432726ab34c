import Foundation
import KVCConfig

/// The inventory at `path`: an inventory file (JSON or plist), or the inventory built from a
/// directory of Swift sources. On failure, the lines to print on standard error.
func loadInventory(_ path: String) -> Result<Inventory, InventoryLoadFailure> {
    var isDir: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
        do throws(InventoryError) {
            return .success(try InventoryBuilder.inventory(directory: path))
        } catch {
            return .failure(InventoryLoadFailure(message: "error: \(error)"))
        }
    }
    do throws(ConfigError) {
        return .success(try Inventory.load(file: path))
    } catch {
        return .failure(InventoryLoadFailure(message: error.problems.map { "error: \($0)" }.joined(separator: "\n")))
    }
}

/// Why an inventory could not be loaded, as the lines to print.
struct InventoryLoadFailure: Error {
    var message: String
}
