package openai

// EventType exposes eventType to the external tests.
var EventType = eventType
