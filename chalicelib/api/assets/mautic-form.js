/*
 * The script of Mautic forms (served at /media/js/mautic-form.js): no framework, any page.
 * For every <form data-mautic-form> of the page it shows and hides conditional rows
 * (data-mautic-form-show-on="<parent alias>:<v1|v2>" or "*", data-mautic-form-expr in/notIn),
 * checks required rows (data-validate) and e-mail formats before posting, posts the form with
 * fetch (ajax=1, the visitor's cookies included) and shows the answer: the success message in
 * #mauticform_<name>_message, a redirect followed, or each field's message in its row.
 */
(function () {
  'use strict';
  if (window.MauticSDK && window.MauticSDK.ready) {
    window.MauticSDK.onLoad();
    return;
  }
  var EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
  var SDK = (window.MauticSDK = { ready: true });

  function each(list, fn) {
    Array.prototype.forEach.call(list, fn);
  }

  function valuesOf(form, alias) {
    var out = [];
    var selector = '[name="mauticform[' + alias + ']"], [name="mauticform[' + alias + '][]"]';
    each(form.querySelectorAll(selector), function (el) {
      if (el.type === 'checkbox' || el.type === 'radio') {
        if (el.checked) out.push(el.value);
      } else if (el.tagName === 'SELECT' && el.multiple) {
        each(el.options, function (o) { if (o.selected && o.value !== '') out.push(o.value); });
      } else if (el.type !== 'file' && el.value !== '') {
        out.push(el.value);
      } else if (el.type === 'file' && el.files && el.files.length) {
        out.push(el.files[0].name);
      }
    });
    return out;
  }

  function rowOf(form, alias) {
    return document.getElementById('mauticform_' + form.getAttribute('data-mautic-form') + '_' + alias);
  }

  function shown(form, row) {
    var spec = row.getAttribute('data-mautic-form-show-on');
    var at = spec.indexOf(':');
    var parent = spec.slice(0, at);
    var wanted = spec.slice(at + 1);
    var notIn = row.getAttribute('data-mautic-form-expr') === 'notIn';
    var parentRow = rowOf(form, parent);
    if (parentRow && parentRow.classList.contains('mauticform-field-hidden')) return false;
    var values = valuesOf(form, parent);
    if (wanted === '*') return values.length > 0;
    var list = wanted === '' ? [] : wanted.split('|');
    return values.some(function (v) { return notIn ? list.indexOf(v) < 0 : list.indexOf(v) >= 0; });
  }

  function applyConditions(form) {
    each(form.querySelectorAll('[data-mautic-form-show-on]'), function (row) {
      row.classList.toggle('mauticform-field-hidden', !shown(form, row));
    });
  }

  function showError(row, message) {
    var span = row.querySelector('.mauticform-errormsg');
    row.classList.toggle('mauticform-has-error', message !== null);
    if (!span) return;
    if (typeof message === 'string') span.textContent = message;
    span.style.display = message === null ? 'none' : '';
  }

  function validate(form) {
    var ok = true;
    each(form.querySelectorAll('[data-validate]'), function (row) {
      var hidden = row.classList.contains('mauticform-field-hidden');
      var values = valuesOf(form, row.getAttribute('data-validate'));
      var email = row.getAttribute('data-validation-type') === 'email';
      var valid = hidden || (values.length > 0 && (!email || EMAIL.test(values[0])));
      showError(row, valid ? null : undefined);
      ok = ok && valid;
    });
    return ok;
  }

  function box(form, which) {
    return document.getElementById('mauticform_' + form.getAttribute('data-mautic-form') + '_' + which);
  }

  function fieldErrors(form, errors) {
    Object.keys(errors).forEach(function (alias) {
      var row = rowOf(form, alias);
      var message = [].concat(errors[alias]).join(' ');
      if (row) showError(row, message);
      else box(form, 'error').textContent = message;
    });
  }

  function answered(form, status, body) {
    if (body && body.success) {
      if (body.redirect) {
        window.location.href = body.redirect;
        return;
      }
      box(form, 'message').textContent = body.successMessage || body.message || '';
      box(form, 'error').textContent = '';
      form.reset();
      applyConditions(form);
      return;
    }
    var errors = (body && (body.validationErrors || (body.errors && body.errors[0] && body.errors[0].details))) || null;
    if (errors && typeof errors === 'object') fieldErrors(form, errors);
    else box(form, 'error').textContent = (body && (body.errorMessage || (body.errors && body.errors[0].message))) || 'Error ' + status;
  }

  function submit(form, event) {
    event.preventDefault();
    applyConditions(form);
    if (!validate(form)) return;
    var back = form.querySelector('input[name="mauticform[return]"]');
    if (back && !back.value) back.value = window.location.href;
    var button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    var url = form.action + (form.action.indexOf('?') < 0 ? '?' : '&') + 'ajax=1';
    fetch(url, { method: 'POST', body: new FormData(form), credentials: 'include' })
      .then(function (response) {
        return response.json().then(function (body) { answered(form, response.status, body); });
      })
      .catch(function (error) { box(form, 'error').textContent = String(error); })
      .then(function () { if (button) button.disabled = false; });
  }

  function prepare(form) {
    if (form.getAttribute('data-mautic-ready')) return;
    form.setAttribute('data-mautic-ready', '1');
    applyConditions(form);
    form.addEventListener('change', function () { applyConditions(form); });
    form.addEventListener('input', function () { applyConditions(form); });
    form.addEventListener('submit', function (event) { submit(form, event); });
  }

  SDK.onLoad = function () {
    each(document.querySelectorAll('form[data-mautic-form]'), prepare);
  };
  SDK.applyConditions = applyConditions;
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', SDK.onLoad);
  else SDK.onLoad();
})();
