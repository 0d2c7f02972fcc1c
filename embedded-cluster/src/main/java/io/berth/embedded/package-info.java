/** An embedded Kubernetes API server for tests and the simulator. */
package io.berth.embedded;
