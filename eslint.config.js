// `npm run lint`: typescript-eslint's recommended rules, with type information for the TypeScript
// of src/ and test/ (tsconfig.check.json), and the plain ones for the JavaScript around them.
import js from '@eslint/js'
import {defineConfig} from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig(
  {ignores: ['dist/', 'coverage/', 'reports/', '.bench/']},
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname},
    },
    rules: {
      // Terminal escapes and control characters are what the sanitizers and their tests look for.
      'no-control-regex': 'off',
      // An async function without await is how a method keeps its promise-returning contract.
      '@typescript-eslint/require-await': 'off',
      // A caught error is rewritten into one line for the operator, its message included.
      'preserve-caught-error': 'off',
      // String() of an unknown value is how an odd value in a gateway's answer is shown.
      '@typescript-eslint/no-base-to-string': 'off',
      // Functions of node:fs and node:path are taken off their modules, and need no `this`.
      '@typescript-eslint/unbound-method': 'off',
      // A name starting with _ is unused on purpose; a rest sibling leaves out the fields it names.
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true}],
      // A variable that a closure reads before its one assignment stays a let.
      'prefer-const': ['error', {ignoreReadBeforeAssign: true}],
      // A ternary may be a statement.
      '@typescript-eslint/no-unused-expressions': ['error', {allowTernary: true}],
      // A caught error is passed on as it came.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', {allowThrowingUnknown: true}],
      // Servers take async request handlers, each of which answers its own errors.
      '@typescript-eslint/no-misused-promises': ['error', {checksVoidReturn: {arguments: false}}],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // A warning: a redundant cast is harmless, and goes when its line is next edited.
      '@typescript-eslint/no-unnecessary-type-assertion': 'warn',
    },
  },
  {
    files: ['src/fast/launch.ts'],
    rules: {
      // The launcher loads Node's built-ins when first needed, with require (its start is every
      // command's), and evaluates bundles whose exports it types where it takes them.
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read answers and documents untyped on purpose: their assertions check the shapes.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {globals: globals.node},
  },
  {
    files: ['bin/**', 'packaging/**'],
    languageOptions: {sourceType: 'commonjs'},
    rules: {
      // The launchers load the CommonJS bundles with require: that is their fast start.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
)
