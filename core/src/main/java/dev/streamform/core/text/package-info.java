/** Wording shared by the modules' messages: counts with their nouns. JDK only. */
package dev.streamform.core.text;
