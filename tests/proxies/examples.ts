/** The proxy examples as the tests run them (they live in testing/, shared with the bench). */
export * from "../../testing/proxy_examples.ts";
