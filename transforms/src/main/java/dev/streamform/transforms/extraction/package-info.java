/**
 * Event-time extraction: the declared column's value as the event's time; a record without a usable
 * time is quarantined, never processed on processing time.
 */
package dev.streamform.transforms.extraction;
