public import EventModel
import Interactions
public import KVCConfig

extension ViewEvent {
    /// The wire type of the events a rule on this view event covers: the type of the interaction
    /// kind it names, from the one table in Modules/Interactions (a tap on a view is a `gesture`).
    public var eventType: EventType { Interaction.Kind(self).eventType }
}
