import { render } from 'preact';
import { App } from './app.tsx';
import { takeKeyFromLocation } from './session.ts';
import './styles.css';

// Before the first render: the router must not read the key's fragment as a page.
takeKeyFromLocation();

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
