/** State layout versions of the keyed stages (what a savepoint holds). */
package dev.streamform.core.state;
