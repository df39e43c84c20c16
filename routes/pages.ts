/** The visitor pages: /wait, /wait/enter, /demo and /static/ (built in routes/pages/). */
export { pageRoutes } from "./pages/mod.tsx";
