import CGtk
import Testing

@testable import GtkTracking

/// Typed GObject properties and typed signal arguments (docs/gtk.md "Typed signals and
/// properties"), on GObjects that need no display: an adjustment, a string object.
@Suite struct GtkTypedSignalTests {
    @Test func aTypedPropertyReadsItsValueAndNilForAnotherTypeOrNoSuchProperty() {
        let adjustment = UnsafeMutableRawPointer(gtk_adjustment_new(2.5, 0, 10, 1, 1, 0)!)
        let text = UnsafeMutableRawPointer(gtk_string_object_new("Gift wrap")!)
        defer {
            g_object_unref(adjustment)
            g_object_unref(text)
        }
        #expect(GObjectProperty.value.read(adjustment) == 2.5)
        #expect(GObjectProperty.string.read(text) == "Gift wrap")
        // The declared GType is checked before the value is read.
        #expect(GObjectProperty<Bool>("value").read(adjustment) == nil)
        #expect(GObjectProperty<String>("value").read(adjustment) == nil)
        #expect(GObjectProperty<Double>("string").read(text) == nil)
        // No such property.
        #expect(GObjectProperty.label.read(adjustment) == nil)
        #expect(GObjectProperty.active.read(text) == nil)
        // By name, whatever the type: what key paths read.
        #expect(AnyGObjectProperty("upper").read(adjustment) as? Double == 10)
        #expect(AnyGObjectProperty("string").read(text) as? String == "Gift wrap")
        #expect(AnyGObjectProperty("label").read(text) == nil)
    }

    @Test func signalArgumentsAreDecodedByNameAndShortParameterListsPassedOver() {
        let list = UnsafeMutableRawPointer(gtk_string_object_new("list")!)
        defer { g_object_unref(list) }
        var values = [GValue](repeating: GValue(), count: 2)
        g_value_init(&values[0], g_object_get_type())
        g_value_set_object(&values[0], list)
        g_value_init(&values[1], g_type_from_name("guint"))
        g_value_set_uint(&values[1], 7)
        defer {
            g_value_unset(&values[0])
            g_value_unset(&values[1])
        }
        values.withUnsafeBufferPointer { buffer in
            let both = GtkSignalParameters(values: buffer.baseAddress!, count: 2)
            let activated = ListActivated(both)
            #expect(activated?.list == list)
            #expect(activated?.position == 7)
            #expect(ButtonClicked(both)?.button == list)
            // The instance alone: a signal that carries an argument is passed over.
            let instanceOnly = GtkSignalParameters(values: buffer.baseAddress!, count: 1)
            #expect(ListActivated(instanceOnly) == nil)
            #expect(SwitchStateSet(instanceOnly) == nil)
            #expect(RowActivated(instanceOnly) == nil)
            #expect(WidgetMapping(instanceOnly)?.widget == list)
        }
    }

    @Test func eachSignalNamesItsEmittingTypes() {
        #expect(GtkSignal.clicked.description == "GtkButton::clicked")
        #expect(GtkSignal.toggled.description == "GtkToggleButton/GtkCheckButton::toggled")
        #expect(GtkSignal.listActivate.description == "GtkListView/GtkGridView/GtkColumnView::activate")
        #expect(GtkSignal.switchStateSet.description == "GtkSwitch::state-set")
    }
}
