/** What both daemons share: flags, client configuration, leader election, health and metrics endpoint. */
package io.berth.component;
