/** Outputs collected to files as lines: what fixture runs and file runs write. */
package dev.streamform.transforms.collect;
