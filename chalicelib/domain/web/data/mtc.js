/**
 * MauticJS, as this service serves it at /mtc.js: the tracking script a website embeds with
 *   (function(w,d,t,u,n,a,m){w['MauticTrackingObject']=n;
 *     w[n]=w[n]||function(){(w[n].q=w[n].q||[]).push(arguments)},a=d.createElement(t),
 *     m=d.getElementsByTagName(t)[0];a.async=1;a.src=u;m.parentNode.insertBefore(a,m)
 *   })(window,document,'script','__BASE__/mtc.js','mt');
 *   mt('send', 'pageview');
 * Page views go to __BASE__/mtc/event (a CORS POST with credentials); when the service does not
 * allow the site's origin, to the tracking pixel __BASE__/mtracking.gif instead.
 */
var MauticJS = MauticJS || {};
(function (m, w, d, n, l) {
    var base = '__BASE__';
    m.pageTrackingUrl = base + '/mtracking.gif';
    m.pageTrackingCORSUrl = base + '/mtc/event';
    m.contactIdUrl = base + '/mtc';
    m.CORSRequestsAllowed = true;
    m.firstDeliveryMade = false;
    m.pageViewCounter = 0;

    m.serialize = function (obj) {
        if (typeof obj === 'string') {
            return obj;
        }
        return Object.keys(obj).map(function (key) {
            return encodeURIComponent(key) + '=' + encodeURIComponent(obj[key] === undefined ? '' : obj[key]);
        }).join('&');
    };

    m.dispatchEvent = function (name, detail) {
        d.dispatchEvent(new CustomEvent(name, {detail: detail}));
    };

    m.setCookie = function (name, value) {
        d.cookie = name + '=' + value + '; path=/' + (l.protocol === 'https:' ? '; secure' : '');
    };

    m.appendTrackedContact = function (data) {
        try {
            if (w.localStorage && localStorage.getItem('mtc_id')) {
                data.mautic_device_id = localStorage.getItem('mautic_device_id');
            }
        } catch (e) { /* storage refused: cookies alone */ }
        return data;
    };

    m.setTrackedContact = function (response) {
        if (!response || !response.id) {
            return;
        }
        m.setCookie('mtc_id', response.id);
        m.setCookie('mautic_device_id', response.device_id);
        m.mtcSet = true;
        try {
            localStorage.setItem('mtc_id', response.id);
            localStorage.setItem('mautic_device_id', response.device_id);
        } catch (e) { /* storage refused */ }
    };

    m.parseTextToJSON = function (text) {
        try {
            return JSON.parse(text);
        } catch (e) {
            return text;
        }
    };

    m.makeCORSRequest = function (method, url, data, success, failure) {
        var query = m.serialize(m.appendTrackedContact(data || {}));
        var xhr = new XMLHttpRequest();
        success = success || function () {};
        failure = failure || function () {};
        if (!m.CORSRequestsAllowed) {
            failure({}, xhr);
            return;
        }
        if (method === 'GET') {
            url = url + '?' + query;
            query = null;
        }
        xhr.open(method, url, true);
        xhr.withCredentials = true;
        if (method === 'POST') {
            xhr.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded');
        }
        xhr.setRequestHeader('X-Requested-With', 'XMLHttpRequest');
        xhr.onreadystatechange = function () {
            if (xhr.readyState !== XMLHttpRequest.DONE) {
                return;
            }
            var response = m.parseTextToJSON(xhr.responseText);
            if (xhr.status === 200) {
                success(response, xhr);
            } else {
                if (xhr.status === 0) {
                    m.CORSRequestsAllowed = false;
                }
                failure(response, xhr);
            }
        };
        xhr.send(query);
    };

    m.getTrackedContact = function () {
        if (!m.mtcSet) {
            m.makeCORSRequest('GET', m.contactIdUrl, {}, m.setTrackedContact);
        }
    };

    m.buildTrackingImage = function (event, params) {
        m.trackingPixel = new Image();
        m.trackingPixel.onload = function () {
            m.dispatchEvent('mauticPageEventDelivered', {event: event, params: params, image: true});
        };
        m.trackingPixel.src = m.pageTrackingUrl + '?' + m.serialize(params);
    };

    m.deliverPageEvent = function (event, params) {
        if (!m.firstDeliveryMade && params.counter > 0) {
            setTimeout(function () { m.deliverPageEvent(event, params); }, 5);
            return;
        }
        m.makeCORSRequest('POST', m.pageTrackingCORSUrl, params, function (response) {
            m.dispatchEvent('mauticPageEventDelivered', {event: event, params: params, response: response});
        }, function () {
            m.buildTrackingImage(event, params);
        });
    };

    m.getOs = function () {
        var version = n.appVersion || '';
        var names = [['Win', 'Windows'], ['Mac', 'MacOS'], ['X11', 'UNIX'], ['Linux', 'Linux']];
        var found = 'Unknown OS';
        names.forEach(function (pair) {
            if (version.indexOf(pair[0]) !== -1) {
                found = pair[1];
            }
        });
        return found;
    };

    m.sendPageview = function (event) {
        var language = n.language || '';
        var params = {
            page_title: d.title,
            page_language: language,
            preferred_locale: language.replace('-', '_'),
            page_referrer: d.referrer ? d.referrer.split('/')[2] : '',
            page_url: l.href,
            counter: m.pageViewCounter,
            timezone_offset: new Date().getTimezoneOffset(),
            resolution: w.screen.width + 'x' + w.screen.height,
            platform: m.getOs(),
            do_not_track: n.doNotTrack == 1
        };
        if (w.Intl && w.Intl.DateTimeFormat) {
            params.timezone = new w.Intl.DateTimeFormat().resolvedOptions().timeZone;
        }
        if (event && typeof event[2] === 'object') {
            for (var name in event[2]) {
                params[name] = event[2][name];
            }
        }
        m.pageViewCounter++;
        m.deliverPageEvent(event, m.appendTrackedContact(params));
    };

    d.addEventListener('mauticPageEventDelivered', function (e) {
        var detail = e.detail;
        if (detail.image && !m.mtcSet) {
            m.getTrackedContact();
        } else if (detail.response && detail.response.id) {
            m.setTrackedContact(detail.response);
        }
        m.firstDeliveryMade = true;
    });

    var input = w[w.MauticTrackingObject];
    if (typeof input === 'undefined') {
        return;
    }
    input.q = input.q || [];
    var isPageview = function (event) {
        return event && event[0] === 'send' && event[1] === 'pageview';
    };
    for (var i = 0; i < input.q.length; i++) {
        if (isPageview(input.q[i])) {
            m.sendPageview(input.q[i]);
        }
    }
    input.q.push = function () {
        for (var j = 0; j < arguments.length; j++) {
            if (isPageview(arguments[j])) {
                m.sendPageview(arguments[j]);
            }
        }
        return Array.prototype.push.apply(this, arguments);
    };
})(MauticJS, window, document, navigator, location);
