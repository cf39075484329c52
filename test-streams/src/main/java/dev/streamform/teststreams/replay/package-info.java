/**
 * Replays of a scoring model's fixture in many arrival orders, judged by the contract ({@code
 * streamform replay-orders}).
 */
package dev.streamform.teststreams.replay;
