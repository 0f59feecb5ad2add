package mentions

import "strings"

// wellKnown lists popular libraries by their GitHub id, display name
// first, then the names, package names and module paths they go by. The
// ids are the repositories'; a Codex7 catalog that indexes one of them
// under the same id gets these names for it too (see WellKnown). The
// ids are not Context7's: a remote resolves the display name.
var wellKnown = []string{
	// JavaScript and TypeScript.
	"/facebook/react | React | react reactjs react.js",
	"/facebook/react-native | React Native | react-native",
	"/vercel/next.js | Next.js | next nextjs next.js",
	"/tanstack/query | TanStack Query | react-query @tanstack/react-query @tanstack/query-core @tanstack/vue-query @tanstack/svelte-query tanstack-query",
	"/expressjs/express | Express | express expressjs express.js",
	"/vitejs/vite | Vite | vite vitejs",
	"/vuejs/core | Vue | vue vuejs vue.js vue3",
	"/nuxt/nuxt | Nuxt | nuxt nuxtjs nuxt.js",
	"/sveltejs/svelte | Svelte | svelte",
	"/sveltejs/kit | SvelteKit | @sveltejs/kit sveltekit",
	"/angular/angular | Angular | @angular/core angularjs",
	"/remix-run/react-router | React Router | react-router react-router-dom",
	"/remix-run/remix | Remix | remix @remix-run/react @remix-run/node",
	"/withastro/astro | Astro | astro",
	"/tailwindlabs/tailwindcss | Tailwind CSS | tailwind tailwindcss",
	"/prisma/prisma | Prisma | prisma @prisma/client",
	"/drizzle-team/drizzle-orm | Drizzle ORM | drizzle-orm drizzle",
	"/colinhacks/zod | Zod | zod",
	"/reduxjs/redux-toolkit | Redux Toolkit | @reduxjs/toolkit rtk",
	"/reduxjs/redux | Redux | redux",
	"/pmndrs/zustand | Zustand | zustand",
	"/axios/axios | Axios | axios",
	"/nestjs/nest | NestJS | nestjs nest.js @nestjs/core @nestjs/common",
	"/fastify/fastify | Fastify | fastify",
	"/honojs/hono | Hono | hono",
	"/koajs/koa | Koa | koa koajs",
	"/jestjs/jest | Jest | jest",
	"/vitest-dev/vitest | Vitest | vitest",
	"/microsoft/playwright | Playwright | playwright @playwright/test",
	"/cypress-io/cypress | Cypress | cypress",
	"/automattic/mongoose | Mongoose | mongoose",
	"/socketio/socket.io | Socket.IO | socket.io socket.io-client",
	"/trpc/trpc | tRPC | trpc @trpc/server @trpc/client @trpc/react-query",
	"/supabase/supabase | Supabase | supabase @supabase/supabase-js supabase-js",
	"/firebase/firebase-js-sdk | Firebase | firebase firebase-admin",
	"/shadcn-ui/ui | shadcn/ui | shadcn shadcn-ui",
	"/mui/material-ui | Material UI | mui @mui/material material-ui",
	"/chakra-ui/chakra-ui | Chakra UI | @chakra-ui/react chakra-ui",
	"/apollographql/apollo-client | Apollo Client | @apollo/client apollo-client",
	"/lodash/lodash | Lodash | lodash lodash-es",
	"/date-fns/date-fns | date-fns | date-fns",
	"/webpack/webpack | webpack | webpack",
	"/typeorm/typeorm | TypeORM | typeorm",
	"/sequelize/sequelize | Sequelize | sequelize",
	"/electron/electron | Electron | electron electronjs",
	"/mrdoob/three.js | Three.js | three threejs three.js",
	"/d3/d3 | D3 | d3 d3js d3.js",
	"/chartjs/chart.js | Chart.js | chart.js chartjs",
	"/storybookjs/storybook | Storybook | storybook",
	"/react-hook-form/react-hook-form | React Hook Form | react-hook-form",
	"/vercel/swr | SWR | swr",
	"/vercel/ai | Vercel AI SDK | ai-sdk @ai-sdk/react @ai-sdk/openai",
	"/nodejs/node | Node.js | nodejs node.js",
	"/denoland/deno | Deno | deno",
	"/oven-sh/bun | Bun | bun bunjs",
	"/jquery/jquery | jQuery | jquery",
	"/graphql/graphql-js | GraphQL.js | graphql-js",
	// Python.
	"/tiangolo/fastapi | FastAPI | fastapi",
	"/django/django | Django | django",
	"/encode/django-rest-framework | Django REST framework | djangorestframework django-rest-framework drf",
	"/pallets/flask | Flask | flask",
	"/pydantic/pydantic | Pydantic | pydantic",
	"/sqlalchemy/sqlalchemy | SQLAlchemy | sqlalchemy",
	"/psf/requests | Requests | requests python-requests",
	"/encode/httpx | HTTPX | httpx",
	"/numpy/numpy | NumPy | numpy",
	"/pandas-dev/pandas | pandas | pandas",
	"/scikit-learn/scikit-learn | scikit-learn | scikit-learn sklearn",
	"/pytorch/pytorch | PyTorch | pytorch torch",
	"/tensorflow/tensorflow | TensorFlow | tensorflow",
	"/huggingface/transformers | Transformers | transformers huggingface-transformers",
	"/langchain-ai/langchain | LangChain | langchain",
	"/pytest-dev/pytest | pytest | pytest",
	"/celery/celery | Celery | celery",
	"/encode/starlette | Starlette | starlette",
	"/encode/uvicorn | Uvicorn | uvicorn",
	"/tiangolo/sqlmodel | SQLModel | sqlmodel",
	"/tiangolo/typer | Typer | typer",
	"/pallets/click | Click | click",
	"/textualize/rich | Rich | rich",
	"/matplotlib/matplotlib | Matplotlib | matplotlib",
	"/streamlit/streamlit | Streamlit | streamlit",
	"/aio-libs/aiohttp | aiohttp | aiohttp",
	"/scrapy/scrapy | Scrapy | scrapy",
	"/openai/openai-python | OpenAI Python | openai",
	"/anthropics/anthropic-sdk-python | Anthropic Python SDK | anthropic",
	// Go.
	"/gin-gonic/gin | Gin | gin go-gin gin-gonic github.com/gin-gonic/gin",
	"/labstack/echo | Echo | echo github.com/labstack/echo",
	"/gofiber/fiber | Fiber | fiber gofiber github.com/gofiber/fiber",
	"/go-chi/chi | chi | chi go-chi github.com/go-chi/chi",
	"/spf13/cobra | Cobra | cobra github.com/spf13/cobra",
	"/spf13/viper | Viper | viper github.com/spf13/viper",
	"/go-gorm/gorm | GORM | gorm gorm.io/gorm",
	"/stretchr/testify | testify | testify github.com/stretchr/testify",
	"/uber-go/zap | zap | zap go.uber.org/zap",
	"/gorilla/mux | gorilla/mux | gorilla-mux github.com/gorilla/mux",
	"/grpc/grpc-go | gRPC-Go | grpc-go google.golang.org/grpc",
	"/modelcontextprotocol/go-sdk | MCP Go SDK | github.com/modelcontextprotocol/go-sdk",
	// Rust.
	"/tokio-rs/tokio | Tokio | tokio",
	"/serde-rs/serde | Serde | serde",
	"/tokio-rs/axum | Axum | axum",
	"/actix/actix-web | Actix Web | actix-web actix",
	"/clap-rs/clap | clap | clap",
	"/seanmonstar/reqwest | reqwest | reqwest",
	"/diesel-rs/diesel | Diesel | diesel",
	"/launchbadge/sqlx | SQLx | sqlx",
	"/bevyengine/bevy | Bevy | bevy",
	// Other ecosystems.
	"/rails/rails | Ruby on Rails | rails ruby-on-rails",
	"/spring-projects/spring-boot | Spring Boot | spring-boot springboot",
	"/laravel/framework | Laravel | laravel",
}

// WellKnown returns popular libraries and the names they go by: for
// giving a catalog's libraries their package names ("@tanstack/react-query"
// for /tanstack/query) and, when a remote documentation service can
// resolve names, for finding libraries the catalog lacks. Each call
// returns a new slice.
func WellKnown() []Library {
	out := make([]Library, 0, len(wellKnown))
	for _, line := range wellKnown {
		f := strings.SplitN(line, "|", 3)
		l := Library{ID: strings.TrimSpace(f[0]), Names: []string{strings.TrimSpace(f[1])}}
		l.Names = append(l.Names, strings.Fields(f[2])...)
		out = append(out, l)
	}
	return out
}
