/**
 * The HTML report and timelines of fixture runs: SVG written over the JDK's XML writer, each mark
 * carrying its data.
 */
package dev.streamform.teststreams.report;
