import Foundation
import KVCConfig
import SourceInventory

/// The inventory at `path`: an inventory file (JSON or plist), or the inventory built from a
/// directory of Swift sources. On failure, the lines to print on standard error, each after
/// `command` (`autotrack-agent check: …`).
func loadInventory(_ path: String, command: String) -> Result<Inventory, InventoryLoadFailure> {
    var isDir: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
        do throws(InventoryError) {
            return .success(try InventoryBuilder.inventory(directory: path))
        } catch {
            return .failure(InventoryLoadFailure(message: "\(command): \(error)"))
        }
    }
    do throws(ConfigError) {
        return .success(try Inventory.load(file: path))
    } catch {
        return .failure(InventoryLoadFailure(message: error.problems.map { "\(command): \($0)" }.joined(separator: "\n")))
    }
}

/// Why an inventory could not be loaded, as the lines to print.
struct InventoryLoadFailure: Error {
    var message: String
}
